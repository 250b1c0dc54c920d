// One 1D type 1 transform through the installed library, checked against the direct sum.
#include <cstdio>
#include <nufftmp/nufftmp.hpp>
#include <nufftmp/reference.hpp>
#include <vector>

int main() {
  const std::int64_t M = 50, N[3] = {32, 1, 1};
  std::vector<double> x(M);
  std::vector<std::complex<double>> c(M), f(N[0]);
  for (std::int64_t j = 0; j < M; ++j) {
    x[j] = -3.0 + 6.0 * static_cast<double>(j) / M;
    c[j] = {1.0 / (1 + j), 0.5};
  }
  nufftmp::Options o;
  o.backend = nufftmp::Backend::Cpu;
  nufftmp::Plan<double> plan(1, {N[0]}, +1, 1, 1e-9, o);
  plan.set_points_host(M, x.data());
  plan.execute_host(c.data(), f.data());
  std::vector<std::int64_t> idx(N[0]);
  for (std::int64_t i = 0; i < N[0]; ++i) idx[i] = i;
  const auto exact =
      nufftmp::reference::type1<double>(1, M, x.data(), nullptr, nullptr, c.data(), +1, N, 0, idx);
  const double err = nufftmp::reference::rel_l2_error<double>(exact, f.data(), idx);
  std::printf("consumer: rel_err %.2e\n", err);
  return err < 1e-8 ? 0 : 1;
}
