// The "exponential of semicircle" spreading kernel: phi(t) = exp(beta (sqrt(1 - (2t/w)^2) - 1))
// for |t| <= w/2 (t in fine-grid cells), 0 outside. Width and beta follow from the tolerance
// and the upsampling factor (Barnett, Magland, af Klinteberg 2019). Both engines evaluate it
// with the same piecewise polynomial, fitted here once per plan.
#pragma once

#include <vector>

namespace nufftmp::detail {

constexpr int kMinWidth = 2;
constexpr int kMaxWidth = 16;
constexpr int kMaxHornerDegree = 20;

struct KernelSpec {
  int w = 0;              // width in fine-grid cells
  double beta = 0;        // shape parameter
  double upsampfac = 2;   // sigma
  int degree = 0;         // Horner degree (degree + 1 coefficients per interval)
  // horner[p * w + j]: coefficient of s^(degree - p) on interval j (highest power first), where
  // s in [-1, 1) is the point's position within its cell, shared by all w intervals.
  std::vector<double> horner;
};

int kernel_width_for(double tol, double upsampfac);
double kernel_beta_for(int w, double upsampfac);
// phi at t (fine-grid cells from the point), evaluated directly with exp/sqrt.
double kernel_direct(double t, int w, double beta);
// Builds the spec: width, beta, and the Horner fit whose error is below fit_tol.
KernelSpec make_kernel(double tol, double upsampfac);
// Evaluates the w kernel values for a point whose first grid cell is at offset x1 = i0 - x,
// x1 in [-w/2, -w/2 + 1), with the Horner fit (reference; the engines inline their own loop).
void kernel_values_horner(const KernelSpec& k, double x1, double* out);

}  // namespace nufftmp::detail
