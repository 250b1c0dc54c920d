// The prolate spheroidal wave function of order zero, psi_0(c, x) on [-1, 1] (Osipov, Rokhlin,
// Xiao, "Prolate Spheroidal Wave Functions of Order Zero", Springer 2013, ch. 2 and 4.1).
//
// psi_0 is the eigenfunction of smallest eigenvalue chi_0 of the prolate operator
//   (L u)(x) = -((1 - x^2) u'(x))' + c^2 x^2 u(x),
// which commutes with the band-limited Fourier operator on [-1, 1]; of all functions supported
// on [-1, 1] it concentrates the most energy in the frequency band [-c, c], which is what a
// spreading kernel wants. In the basis of normalised Legendre polynomials
// Pbar_k = sqrt(k + 1/2) P_k, L is a symmetric tridiagonal matrix on the even (or the odd)
// degrees (x^2 P_k couples P_{k-2}, P_k and P_{k+2}); psi_0 is even, and its coefficients are
// the eigenvector of that matrix on the even degrees for the smallest eigenvalue. They decay
// faster than exponentially once k exceeds about c, so a few dozen suffice for double.
#pragma once

#include <vector>

namespace nufftmp::detail {

struct Pswf0 {
  double c = 0;
  double chi = 0;  // the eigenvalue chi_0(c)
  // psi_0(c, x) = sum_j coef[j] P_{2j}(x) (plain Legendre polynomials), scaled so that
  // psi_0(c, 0) = 1.
  std::vector<double> coef;
};

// psi_0 for shape parameter c >= 0 (c = 0: the constant 1).
Pswf0 make_pswf0(double c);

// sum_j coef[j] P_{2j}(x), by the Legendre recurrence.
double legendre_even_series(const std::vector<double>& coef, double x);

// psi_0(c, x) for |x| <= 1 (the series; its value outside [-1, 1] is not the kernel's).
inline double pswf0_value(const Pswf0& p, double x) { return legendre_even_series(p.coef, x); }

// psi_0 re-expanded as sum_j a[j] T_j(2 x^2 - 1) (Chebyshev polynomials in y = 2 x^2 - 1, which
// covers the even function on [-1, 1] once): evaluated by Clenshaw's recurrence, without the
// divisions of the Legendre one, about 10x faster (the plan evaluates the kernel a few thousand
// times to fit and check its piecewise polynomial). Interpolation at Chebyshev nodes in y; the
// coefficients fall below 1e-16 of the largest within about c/2 + 15 terms.
std::vector<double> pswf0_chebyshev(const Pswf0& p);

// sum_j a[j] T_j(y), |y| <= 1.
double chebyshev_series(const std::vector<double>& a, double y);

// The Legendre series and its first two derivatives at x, for checks of the eigen-equation.
void pswf0_derivatives(const Pswf0& p, double x, double& u, double& du, double& d2u);

}  // namespace nufftmp::detail
