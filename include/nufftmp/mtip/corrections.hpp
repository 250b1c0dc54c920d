// Per-pixel detector mask and correction (corrections.cpp): which pixels to use and the
// factor C_p of each pixel's expected signal, read from the input (spinifel's and skopi's
// names) or from data sets the user names, and applied to the data once so that matching and
// merging see them through their ordinary inputs.
//
// The model: pixel p of image i counts photons b_ip ~ Poisson(C_p I(R_i q_p)), C_p the
// polarization factor times the pixel's solid angle (times any gain). Corrected data
// d_ip = b_ip / C_p have mean I and variance I / C_p, so the weighted least squares of
// matching and merging take d with weights w_p = C_p (with Poisson weights also 1 / mean
// intensity): sum_p (b_p - C_p s_p)^2 / (C_p s_p) = sum_p C_p (d_p - s_p)^2 / s_p. Unweighted
// least squares on d would count the pixels of small C_p (edges, the polarization minimum),
// whose d is noisiest, as much as the others; leaving C out biases the model by C's
// anisotropy. The Poisson likelihood of matching reads b and C directly.
// A mask removes pixels from the pixel list before anything else runs: neither matching nor
// merging ever sees them.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nufftmp/mtip/io.hpp"

namespace nufftmp::mtip {

struct CorrectionOptions {
  // Mask data sets, each "NAME" (in the input) or "FILE:NAME", of the detector's shape:
  // nonzero = good pixel; several: a pixel is kept only if every mask keeps it. Empty: the
  // input's own "mask" or "pixel_mask" when present (use_file_mask).
  std::vector<std::string> mask;
  bool use_file_mask = true;
  // Correction data sets, multiplied: C_p = product. Empty: the input's "correction", else its
  // "polarization" times "solid_angle" (skopi's names), when present (use_file_correction).
  std::vector<std::string> correction;
  bool use_file_correction = true;
  // Also mask the pixels with |q| < q_min * q_max (a beam stop; 0: none).
  double q_min = 0;
};

struct PixelCorrections {
  std::vector<char> keep;          // npix (empty: every pixel)
  std::vector<double> correction;  // npix, > 0 on kept pixels, mean 1 over them (empty: ones)
  std::int64_t kept = 0;
  std::string summary;  // what was applied, in one line
};

// Collective. positions: [3, npix] (for q_min). Masks and corrections must have the
// detector's shape ([panels, ny, nx] or [ny, nx] when panels = 1) and finite values; a
// correction <= 0 on a kept pixel masks it (reported); keeping no pixel is an error.
PixelCorrections read_pixel_corrections(MPI_Comm comm, const std::string& input,
                                        const DataInfo& info, const std::vector<double>& positions,
                                        const CorrectionOptions& co);

// Removes the pixels pc does not keep: positions [3, npix] -> [3, kept], images
// [n_images, npix] -> [n_images, kept] (in place).
void remove_masked_pixels(const PixelCorrections& pc, std::vector<double>& positions,
                          std::vector<float>& images, std::int64_t n_images);
// pc.correction on the kept pixels only (empty when pc has none).
std::vector<double> kept_correction(const PixelCorrections& pc);

}  // namespace nufftmp::mtip
