// cuFFT times of a NUFFT's fine-grid transform, whole against pruned (a measuring probe for
// src/core/cuda/PERFORMANCE.md "The pruned FFT"). A type 2 transform's input is zero outside
// the N1 x N2 (x N3) modes, and a type 1 transform's output is read only there, so the
// transform over the slow axes needs only the x-columns of the modes, two runs of ceil(N1/2):
// pass A = the (dim-1)-dimensional transform over y (and z) of those columns (stride nf1,
// distance 1), pass B = the rows along x (contiguous, all of them). "rows R" also times pass B
// over R rows only (what a type 2 transform needs when its points touch only R rows).
// Build and run on the GPU machine:
//   nvcc -O2 -arch=sm_90 -o /tmp/fftp scripts/fft_prune_probe.cu -lcufft
//   /tmp/fftp f|d nf1 nf2 [nf3] N1 [rows R]
#include <cuda_runtime.h>
#include <cufft.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x) do { int e_ = int(x); if (e_) { printf("error %d at %s:%d\n", e_, __FILE__, __LINE__); exit(1); } } while (0)

static float time_ms(cudaStream_t s, int reps, const std::vector<cufftHandle>& plans,
                     const std::vector<std::vector<size_t>>& offs, void* data, bool dbl) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  float best = 1e30f;
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(a, s);
    for (size_t p = 0; p < plans.size(); ++p)
      for (size_t o : offs[p]) {
        if (dbl) {
          auto* q = static_cast<cufftDoubleComplex*>(data) + o;
          CK(cufftExecZ2Z(plans[p], q, q, CUFFT_INVERSE));
        } else {
          auto* q = static_cast<cufftComplex*>(data) + o;
          CK(cufftExecC2C(plans[p], q, q, CUFFT_INVERSE));
        }
      }
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (ms < best) best = ms;
  }
  return best;
}

int main(int argc, char** argv) {
  if (argc < 5) { printf("usage: f|d nf1 nf2 [nf3] N1 [rows R]\n"); return 1; }
  const bool dbl = argv[1][0] == 'd';
  std::vector<long long> nums;
  long long rows = -1;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "rows") && i + 1 < argc) { rows = atoll(argv[++i]); continue; }
    nums.push_back(atoll(argv[i]));
  }
  const int dim = int(nums.size()) - 1;
  const long long nf1 = nums[0], nf2 = nums[1], nf3 = dim == 3 ? nums[2] : 1, N1 = nums.back();
  const long long cells = nf1 * nf2 * nf3;
  const size_t es = dbl ? 16 : 8;
  const cufftType ty = dbl ? CUFFT_Z2Z : CUFFT_C2C;
  void* data;
  CK(cudaMalloc(&data, cells * es));
  CK(cudaMemset(data, 0, cells * es));
  cudaStream_t s;
  cudaStreamCreate(&s);
  const int reps = 20;
  // Whole: cuFFT's own dim-dimensional transform.
  cufftHandle whole;
  long long n[3];
  for (int d = 0; d < dim; ++d) n[d] = (d == 0 ? (dim == 3 ? nf3 : nf2) : d == 1 && dim == 3 ? nf2 : nf1);
  size_t work = 0;
  CK(cufftCreate(&whole));
  CK(cufftMakePlanMany64(whole, dim, n, nullptr, 1, cells, nullptr, 1, cells, ty, 1, &work));
  cufftSetStream(whole, s);
  time_ms(s, 3, {whole}, {{0}}, data, dbl);
  const float t_whole = time_ms(s, reps, {whole}, {{0}}, data, dbl);
  // Pass A: over the slow axes, c = ceil(N1/2) columns at x = 0 and at x = nf1 - c.
  const long long c = (N1 + 1) / 2;
  cufftHandle pa, pb, pr = 0;
  long long na[2] = {dim == 3 ? nf3 : nf2, nf2};
  long long emb[2] = {dim == 3 ? nf3 : nf2, dim == 3 ? nf2 : 1};
  CK(cufftCreate(&pa));
  CK(cufftMakePlanMany64(pa, dim - 1, na, emb, nf1, 1, emb, nf1, 1, ty, c, &work));
  cufftSetStream(pa, s);
  long long nb[1] = {nf1};
  CK(cufftCreate(&pb));
  CK(cufftMakePlanMany64(pb, 1, nb, nullptr, 1, nf1, nullptr, 1, nf1, ty, nf2 * nf3, &work));
  cufftSetStream(pb, s);
  const std::vector<size_t> a_offs = {0, size_t(nf1 - c)};
  time_ms(s, 3, {pa, pb}, {a_offs, {0}}, data, dbl);
  const float t_a = time_ms(s, reps, {pa}, {a_offs}, data, dbl);
  const float t_b = time_ms(s, reps, {pb}, {{0}}, data, dbl);
  const float t_ab = time_ms(s, reps, {pa, pb}, {a_offs, {0}}, data, dbl);
  printf("%s nf %lld %lld %lld N1 %lld: whole %.4f ms, pruned %.4f (A %.4f x2 runs of %lld, B %.4f)",
         dbl ? "double" : "float", nf1, nf2, nf3, N1, t_whole, t_ab, t_a, c, t_b);
  if (rows > 0) {
    CK(cufftCreate(&pr));
    CK(cufftMakePlanMany64(pr, 1, nb, nullptr, 1, nf1, nullptr, 1, nf1, ty, rows, &work));
    cufftSetStream(pr, s);
    time_ms(s, 3, {pr}, {{0}}, data, dbl);
    const float t_r = time_ms(s, reps, {pr}, {{0}}, data, dbl);
    const float t_ar = time_ms(s, reps, {pa, pr}, {a_offs, {0}}, data, dbl);
    printf(", A + B over %lld rows %.4f (B alone %.4f)", rows, t_ar, t_r);
  }
  printf("\n");
  return 0;
}
