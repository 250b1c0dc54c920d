// An independent Ewald sum for the tests, written from the textbook formulas with none of the
// library's code: real space by all pairs and all image shifts within rcut, reciprocal space
// by an explicit sum over k vectors (half of them, k and -k paired) with S(k) from cos/sin,
// O(N K). With reference_parameters it is converged to ~1e-15 (relative), far below any
// accuracy the solver is asked for.
#pragma once

#include <array>
#include <vector>

namespace nufftmp::ewald::test {

struct DirectParams {
  double alpha = 1, rcut = 1, kmax = 1;
};

struct DirectResult {
  double energy = 0;
  std::vector<double> phi, fx, fy, fz;
};

// rcut = min(L)/2, alpha with erfc(alpha rcut) ~ 1e-17, kmax with exp(-kmax^2/(4 alpha^2))
// ~ 1e-17.
DirectParams reference_parameters(const std::array<double, 3>& L);

// Every ion's potential and force and the total energy (self term, and the uniform
// background for a net charge, included).
DirectResult direct_ewald(const std::array<double, 3>& L, const std::vector<double>& x,
                          const std::vector<double>& y, const std::vector<double>& z,
                          const std::vector<double>& q, const DirectParams& p);

}  // namespace nufftmp::ewald::test
