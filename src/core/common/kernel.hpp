// The spreading kernel phi(t), t in fine-grid cells from the point, supported on |t| <= w/2:
//   PSWF (default): phi(t) = psi_0(c, 2t/w) / psi_0(c, 0), psi_0 the prolate spheroidal wave
//                   function of order zero (common/pswf.hpp), c = pi w (1 - 1/(2 sigma)) - 0.05;
//   ES:             phi(t) = exp(beta (sqrt(1 - (2t/w)^2) - 1)) (Barnett, Magland,
//                   af Klinteberg 2019).
// Width and shape follow from the tolerance, the upsampling factor sigma and (PSWF) the
// dimension, by the rules of FINUFFT 2.6 (PSWF) and FINUFFT <= 2.4 (ES). Both engines evaluate
// phi with the same piecewise polynomial, fitted here once per plan; kernel_value() is the
// exact kernel that the fit, the deconvolution factors and the tests read.
#pragma once

#include <vector>

#include "nufftmp/options.hpp"

namespace nufftmp::detail {

constexpr int kMinWidth = 2;
constexpr int kMaxWidth = 16;       // double: both engines instantiate widths 2..16
constexpr int kMaxWidthFloat = 10;  // float: the CUDA engine instantiates 2..10; float rounding
                                    // stops any wider kernel from being more accurate
constexpr int kMaxHornerDegree = 20;

// Widest kernel the engines compile for this precision.
template <typename T>
constexpr int max_width() {
  return sizeof(T) == 4 ? kMaxWidthFloat : kMaxWidth;
}

// (Rounding can make a wider kernel less accurate at low sigma: common/rounding_floor.hpp.)

// The tolerance the width rule assigns to width w (its inverse): what a clamped kernel reaches.
double kernel_tolerance_at_width(Kernel kind, int w, double upsampfac, int dim);

struct KernelSpec {
  Kernel kind = Kernel::PSWF;
  int w = 0;              // width in fine-grid cells
  double shape = 0;       // ES: beta; PSWF: c
  double upsampfac = 2;   // sigma
  int degree = 0;         // Horner degree (degree + 1 coefficients per interval)
  // horner[p * w + j]: coefficient of s^(degree - p) on interval j (highest power first), where
  // s in [-1, 1) is the point's position within its cell, shared by all w intervals.
  std::vector<double> horner;
  // PSWF only: phi(t) = sum_j chebyshev[j] T_j(2 z^2 - 1), z = 2t/w (common/pswf.hpp), phi(0) = 1.
  std::vector<double> chebyshev;
};

const char* kernel_name(Kernel kind) noexcept;

// The width the rule asks for, before any clamping (may exceed kMaxWidth).
//   PSWF: ceil(log(tolfac / tol) / (pi sqrt(1 - 1/sigma)) + 1), tolfac = 0.18 * 1.4^(dim - 1)
//   ES:   sigma = 2: ceil(log10(10 / tol)); else ceil(log(1/tol) / (pi sqrt(1 - 1/sigma)))
int kernel_width_needed(Kernel kind, double tol, double upsampfac, int dim);
// The same clamped to [kMinWidth, max_width].
int kernel_width_for(Kernel kind, double tol, double upsampfac, int dim, int max_width);
// Smallest sigma > 1 at which the rule's width before its ceil() (for ES: its sigma != 2
// branch) is at most w (w may be fractional); +infinity when no sigma does. Candidates of the
// upsampling-factor choice.
double min_upsampfac_for_width(Kernel kind, double tol, int dim, double w);
// Shape parameter for width w at sigma: ES beta, PSWF c.
double kernel_shape_for(Kernel kind, int w, double upsampfac);

// The exponential of semicircle at t for width w and shape beta.
double es_kernel(double t, int w, double beta);
// phi(t) of kernel k, evaluated from its formula (0 outside |t| <= w/2).
double kernel_value(const KernelSpec& k, double t);

// The kernel of width w at sigma without its piecewise polynomial (kind, w, shape, PSWF series):
// enough for kernel_value() and the kernel's Fourier transform.
KernelSpec kernel_of_width(Kernel kind, int w, double upsampfac);

// Builds the spec: width (clamped to max_width), shape, PSWF series, and the Horner fit of the
// smallest degree whose error is below tol / 10 (PSWF at tol > 1e-3: tol / 100).
KernelSpec make_kernel(Kernel kind, double tol, double upsampfac, int dim, int max_width);

// Evaluates the w kernel values for a point whose first grid cell is at offset x1 = i0 - x,
// x1 in [-w/2, -w/2 + 1), with the Horner fit (reference; the engines inline their own loop).
void kernel_values_horner(const KernelSpec& k, double x1, double* out);

}  // namespace nufftmp::detail
