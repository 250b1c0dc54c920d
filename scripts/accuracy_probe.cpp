// Helper of scripts/accuracy_vs_finufft.py (compiled by it against a build's libnufftmp; not
// part of the build): runs one nufftmp transform on points and data read from a file and
// writes our outputs and the direct sum (nufftmp::reference) at sampled outputs, so that
// FINUFFT can be measured against the same exact values.
//   accuracy_probe IN OUT prec(f|d) type dim N1 N2 N3 tol upsampfac kernel(pswf|es) backend
// IN (little-endian): int64 M, int64 nidx; double x[M], y[M], z[M] (unused axes present);
//   double re/im of c[M] (type 1) or f[N1 N2 N3] (type 2, x fastest, modeord 0); int64 idx[nidx].
// OUT: double re/im of ours[nidx], then of exact[nidx]. stdout: one JSON line (w, sigma, kernel).
#include <nufftmp/nufftmp.hpp>

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

template <typename V>
void read(std::ifstream& in, V* p, std::size_t n) {
  in.read(reinterpret_cast<char*>(p), static_cast<std::streamsize>(n * sizeof(V)));
  if (!in) throw std::runtime_error("short input file");
}

template <typename T>
int run(char** argv) {
  const int type = std::atoi(argv[4]), dim = std::atoi(argv[5]);
  const std::int64_t N[3] = {std::atoll(argv[6]), std::atoll(argv[7]), std::atoll(argv[8])};
  const double tol = std::atof(argv[9]);
  nufftmp::Options o;
  o.upsampfac = std::atof(argv[10]);
  o.kernel = std::strcmp(argv[11], "es") == 0 ? nufftmp::Kernel::ES : nufftmp::Kernel::PSWF;
  o.backend = std::strcmp(argv[12], "cuda") == 0 ? nufftmp::Backend::Cuda : nufftmp::Backend::Cpu;

  std::ifstream in(argv[1], std::ios::binary);
  std::int64_t M = 0, nidx = 0;
  read(in, &M, 1);
  read(in, &nidx, 1);
  std::vector<double> xyz(3 * M);
  read(in, xyz.data(), xyz.size());
  const std::int64_t nmodes = N[0] * N[1] * N[2];
  const std::int64_t nin = type == 1 ? M : nmodes;
  std::vector<std::complex<double>> data(nin);
  read(in, data.data(), data.size());
  std::vector<std::int64_t> idx(nidx);
  read(in, idx.data(), idx.size());

  std::vector<T> pts[3];
  for (int d = 0; d < 3; ++d) pts[d].assign(xyz.begin() + d * M, xyz.begin() + (d + 1) * M);
  std::vector<std::complex<T>> c(M), f(nmodes);
  std::vector<std::complex<T>>& input = type == 1 ? c : f;
  for (std::int64_t i = 0; i < nin; ++i) input[i] = std::complex<T>(data[i]);

  std::vector<std::int64_t> modes(N, N + dim);
  nufftmp::Plan<T> plan(type, modes, +1, 1, tol, o);
  const T* y = dim > 1 ? pts[1].data() : nullptr;
  const T* z = dim > 2 ? pts[2].data() : nullptr;
  plan.set_points_host(M, pts[0].data(), y, z);
  plan.execute_host(c.data(), f.data());
  const std::vector<std::complex<double>> exact =
      type == 1 ? nufftmp::reference::type1<T>(dim, M, pts[0].data(), y, z, c.data(), +1, N, 0, idx)
                : nufftmp::reference::type2<T>(dim, pts[0].data(), y, z, f.data(), +1, N, 0, idx);
  const std::vector<std::complex<T>>& out = type == 1 ? f : c;
  std::vector<std::complex<double>> ours(nidx);
  for (std::int64_t i = 0; i < nidx; ++i) ours[i] = std::complex<double>(out[idx[i]]);
  std::ofstream os(argv[2], std::ios::binary);
  os.write(reinterpret_cast<const char*>(ours.data()), nidx * sizeof(ours[0]));
  os.write(reinterpret_cast<const char*>(exact.data()), nidx * sizeof(exact[0]));
  std::printf("{\"w\": %d, \"sigma\": %.6g, \"kernel\": \"%s\", \"shape\": %.6g, \"tol_eff\": %g}\n",
              plan.kernel_width(), plan.upsampfac(), nufftmp::kernel_name(plan.kernel()),
              plan.kernel_beta(), plan.tolerance());
  return os ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 13) {
    std::fprintf(stderr, "usage: %s IN OUT f|d type dim N1 N2 N3 tol upsampfac pswf|es cpu|cuda\n",
                 argv[0]);
    return 2;
  }
  try {
    return argv[3][0] == 'f' ? run<float>(argv) : run<double>(argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accuracy_probe: %s\n", e.what());
    return 1;
  }
}
