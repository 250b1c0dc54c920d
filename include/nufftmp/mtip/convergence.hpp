// Convergence measures that need no ground truth (convergence.cpp): the half-set shell
// correlation of two merged intensities and the orientations' change between generations.
#pragma once

#include <cstdint>
#include <vector>

#include "nufftmp/mtip/geometry.hpp"

namespace nufftmp::mtip {

// Correlation per shell of two intensities on the M^3 reciprocal lattice (centred order, as
// intensity_from_ac gives them): shell s holds the lattice points with round(|k|) = s,
// s = 0 .. M/2 (the ball the detector's q_max fills; the cube's corners are never measured).
//   fsc[s] = sum (a - abar)(b - bbar) / sqrt(sum (a - abar)^2 sum (b - bbar)^2)
// With remove_radial_profile (the default) abar, bbar are the means over the points of the
// same exact radius (|k|^2 is an integer on the lattice): the radial profile of the intensity
// (the SAXS curve), which any assignment of orientations reproduces, random ones included
// (it made the old intensity score read 0.82 for a spherical average). What is left is the
// anisotropy that only consistent orientations build. Without it, abar = bbar = 0: the plain
// FSC formula of the field.
// Applied to two half data sets merged separately this is the half-set Fourier shell
// correlation (the intensity's Fourier coefficients are the density's |F|^2), i.e. CC_1/2
// per resolution shell.
struct ShellCurve {
  std::vector<double> fsc;           // per shell; 0 where a shell has < 2 points or no spread
  std::vector<std::int64_t> points;  // lattice points per shell
};
ShellCurve shell_correlation(const std::vector<double>& a, const std::vector<double>& b,
                             std::int64_t M, bool remove_radial_profile = true);
// Shell (fractional, linearly interpolated) where the curve first drops below threshold,
// scanning from shell 1 (shell 0 is one point); the last shell when it never does, 0 when
// shell 1 is already below. Resolution in Angstrom: M * voxel / shell.
double shell_crossing(const ShellCurve& c, double threshold);
// Mean of the curve over shells 1 .. last (one number for "better or worse": the area under
// the curve, less jumpy than a crossing).
double shell_mean(const ShellCurve& c);

// Median angle (degrees) between each image's orientation in two generations (same images, same
// order), modulo the Friedel twin (q z180: 180 degrees about the beam, which slices of a flat
// Ewald sphere cannot tell from q); q and -q are one rotation. remove_frame: after the global
// rotation that best takes
// before into after (the model's frame is arbitrary and may turn as a whole between
// generations: that is no instability), as the scores remove the frame against the truth.
double median_orientation_change(const std::vector<Quaternion>& before,
                                 const std::vector<Quaternion>& after, bool remove_frame = true);

}  // namespace nufftmp::mtip
