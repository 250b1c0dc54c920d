// One-time CUDA costs of a first plan, and cuFFT times by size (a measuring probe for
// PERFORMANCE.md "What a plan costs now" and the 1D fine-grid sizes; docs/data/probe_h200_*.txt).
// Build and run on the GPU machine:  nvcc -O2 -arch=sm_90 -o /tmp/probe scripts/cuda_probe.cu -lcufft
//   /tmp/probe pool | default          first allocation from an own pool / the default pool
//   /tmp/probe steps ctx,malloc1k,...  allocation steps in order, each timed (see "steps" below)
//   /tmp/probe fft N...                1D C2C float sizes;  /tmp/probe fft2 [d] N1 N2 ...  2D
#include <cuda_runtime.h>
#include <cufft.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
static double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
#define T0 double t_ = now_ms();
#define T1(what) do { cudaDeviceSynchronize(); printf("%-34s %8.3f ms\n", what, now_ms() - t_); t_ = now_ms(); } while (0)
int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "pool";
  if (!strcmp(mode, "pool") || !strcmp(mode, "default")) {
    T0;
    int v = 0; cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0); T1("attribute (no context?)");
    cudaFree(0); T1("cudaFree(0) context");
    cudaStream_t s; cudaStreamCreate(&s); T1("stream create");
    size_t fr, tot; cudaMemGetInfo(&fr, &tot); T1("cudaMemGetInfo");
    cudaMemPool_t pool;
    if (!strcmp(mode, "pool")) {
      cudaMemPoolProps p{}; p.allocType = cudaMemAllocationTypePinned; p.location.type = cudaMemLocationTypeDevice; p.location.id = 0;
      cudaMemPoolCreate(&pool, &p); T1("cudaMemPoolCreate");
      unsigned long long th = tot / 2; cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &th); T1("set threshold");
    } else {
      cudaDeviceGetDefaultMemPool(&pool, 0); T1("default pool");
    }
    void* a; cudaMallocFromPoolAsync(&a, 1024, pool, s); cudaStreamSynchronize(s); T1("first alloc 1 KiB");
    void* b; cudaMallocFromPoolAsync(&b, 160u << 20, pool, s); cudaStreamSynchronize(s); T1("alloc 160 MiB");
    cudaMemsetAsync(b, 0, 160u << 20, s); cudaStreamSynchronize(s); T1("first memset 160 MiB");
    cudaMemsetAsync(b, 0, 160u << 20, s); cudaStreamSynchronize(s); T1("second memset 160 MiB");
    void* c; cudaMalloc(&c, 160u << 20); T1("cudaMalloc 160 MiB");
    cudaEvent_t e; cudaEventCreate(&e); T1("event create");
    return 0;
  }
  // steps: a comma-separated sequence of allocation steps, each timed (a fresh process per
  // sequence: what is measured is what a process pays the first time)
  if (!strcmp(mode, "steps") && argc > 2) {
    cudaStream_t s = nullptr;
    cudaMemPool_t own = nullptr, dflt = nullptr;
    char* list = argv[2];
    for (char* st = strtok(list, ","); st; st = strtok(nullptr, ",")) {
      T0;
      void* p = nullptr;
      if (!strcmp(st, "ctx")) cudaFree(0);
      else if (!strcmp(st, "stream")) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      else if (!strcmp(st, "malloc1k")) cudaMalloc(&p, 1024);
      else if (!strcmp(st, "malloc160m")) cudaMalloc(&p, 160u << 20);
      else if (!strcmp(st, "pinned1k")) cudaMallocHost(&p, 1024);
      else if (!strcmp(st, "defpool")) cudaDeviceGetDefaultMemPool(&dflt, 0);
      else if (!strcmp(st, "def1k")) { cudaMallocFromPoolAsync(&p, 1024, dflt, s); cudaStreamSynchronize(s); }
      else if (!strcmp(st, "def160m")) { cudaMallocFromPoolAsync(&p, 160u << 20, dflt, s); cudaStreamSynchronize(s); }
      else if (!strcmp(st, "pool") || !strcmp(st, "poolmax")) {
        cudaMemPoolProps pr{}; pr.allocType = cudaMemAllocationTypePinned;
        pr.location.type = cudaMemLocationTypeDevice; pr.location.id = 0;
        if (!strcmp(st, "poolmax")) pr.maxSize = size_t(8) << 30;
        cudaMemPoolCreate(&own, &pr);
      }
      else if (!strcmp(st, "own1k")) { cudaMallocFromPoolAsync(&p, 1024, own, s); cudaStreamSynchronize(s); }
      else if (!strcmp(st, "own160m")) { cudaMallocFromPoolAsync(&p, 160u << 20, own, s); cudaStreamSynchronize(s); }
      else if (!strcmp(st, "memset")) { cudaMalloc(&p, 1024); cudaMemsetAsync(p, 0, 1024, s); cudaStreamSynchronize(s); }
      else { printf("unknown step %s\n", st); return 2; }
      cudaError_t e = cudaGetLastError();
      char label[64]; snprintf(label, sizeof label, "%s%s", st, e == cudaSuccess ? "" : " (error)");
      T1(label);
    }
    return 0;
  }
  // fft: 1D c2c float sizes (argv[2..]) or "2d n1 n2 [d]"
  cudaFree(0);
  std::vector<long> ns;
  bool two = !strcmp(mode, "fft2"), dbl = argc > 2 && !strcmp(argv[2], "d");
  for (int i = dbl ? 3 : 2; i < argc; ++i) ns.push_back(atol(argv[i]));
  size_t maxn = 0;
  std::vector<std::vector<long>> shapes;
  if (two) for (size_t i = 0; i + 1 < ns.size(); i += 2) shapes.push_back({ns[i], ns[i + 1]});
  else for (long n : ns) shapes.push_back({n});
  for (auto& sh : shapes) { size_t t = 1; for (long n : sh) t *= n; if (t > maxn) maxn = t; }
  void* buf; cudaMalloc(&buf, maxn * (dbl ? 16 : 8));
  cudaMemset(buf, 0, maxn * (dbl ? 16 : 8));
  for (auto& sh : shapes) {
    cufftHandle h; int n[2] = {int(sh[0]), sh.size() > 1 ? int(sh[1]) : 1};
    double t0 = now_ms();
    cufftResult r = cufftPlanMany(&h, int(sh.size()), n, nullptr, 1, 0, nullptr, 1, 0, dbl ? CUFFT_Z2Z : CUFFT_C2C, 1);
    cudaDeviceSynchronize(); double tp = now_ms() - t0;
    if (r != CUFFT_SUCCESS) { printf("shape %ld x %ld: plan failed %d\n", sh[0], sh.size() > 1 ? sh[1] : 1, r); continue; }
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    float best = 1e9;
    for (int it = 0; it < 12; ++it) {
      cudaEventRecord(a);
      if (dbl) cufftExecZ2Z(h, (cufftDoubleComplex*)buf, (cufftDoubleComplex*)buf, CUFFT_INVERSE);
      else cufftExecC2C(h, (cufftComplex*)buf, (cufftComplex*)buf, CUFFT_INVERSE);
      cudaEventRecord(b); cudaEventSynchronize(b);
      float ms; cudaEventElapsedTime(&ms, a, b); if (it > 1 && ms < best) best = ms;
    }
    printf("fft %s %8ld x %5ld: plan %7.2f ms, exec best %.4f ms\n", dbl ? "z2z" : "c2c", sh[0], sh.size() > 1 ? sh[1] : 1L, tp, best);
    cufftDestroy(h);
  }
  return 0;
}
