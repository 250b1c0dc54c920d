// The ground truth an input may carry (truth_volume.cpp), in the form the scores need, and the
// intensity score against it. A truth of a kind or size the reconstruction cannot be compared
// with is reported and skipped: it never stops a run.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nufftmp/mtip/geometry.hpp"
#include "nufftmp/mtip/io.hpp"

namespace nufftmp::mtip {

struct TruthModel {
  enum class Kind { None, Density, Intensity };
  Kind kind = Kind::None;
  // Density: the real density on the reconstruction's M^3 lattice (a file's N^3 density on the
  // same voxel is centred and zero-padded or cropped to M^3: the voxel depends only on q_max,
  // M only sets the box).
  std::vector<double> density;
  // The true intensity at reciprocal points (1/Angstrom, [3, n]) inside |q| <= q_max, with the
  // lattice shell of each point (round(|q| M voxel)). Density: the lattice points of the ball,
  // from the density's autocorrelation. Intensity: a complex diffraction field (spinifel's
  // volume) on skopi's mesh linspace(-q_ext, q_ext, N)^3 taken as |F|^2 - the intensity the
  // images sample; its real part alone is no physical quantity, and the density would need
  // the phases of a mesh that does not match the lattice.
  std::vector<double> points, intensity;
  // Per point: its exact radius on its own grid (an integer |k|^2), for removing the radial
  // profile at each point's radius (the anisotropic score).
  std::vector<std::int64_t> radius_group;
  // Per point, the index of the point at -y, or -1 (empty: none known). The lattice's points
  // have theirs (a real ac's intensity is even, so a pair needs one evaluation); skopi's mesh
  // is left without.
  std::vector<std::int64_t> mirror;
  std::string note;  // what was found and done, in one line
};

// Collective. M, scale: the reconstruction's lattice and NUFFT scale (reciprocal_scale of the
// unmasked detector); q_max: the unmasked detector's largest |q| (1/Angstrom).
TruthModel read_truth(MPI_Comm comm, const std::string& path, const DataInfo& info, std::int64_t M,
                      double scale, double q_max);

// A density truth on the reconstruction's M^3 lattice (what read_truth makes of a file's M^3
// density; the scores' tests and timings build one without a file).
TruthModel truth_from_density(std::vector<double> density, std::int64_t M, double scale);

// Correlation of the reconstruction's intensity (its autocorrelation ac_rec, centred M^3) with
// the truth's samples, the reconstruction read at R(g) y (g: the frame rotation of
// volume.hpp), weighted by |k|^2 as rotated_intensity_correlation. anisotropic: each shell's
// radial profile is removed from both first (the mean over the points of the same exact radius;
// it says nothing of orientations).
// Points with |y| < q_low (1/Angstrom: the smallest |q| the kept pixels measure, e.g. behind a
// beam stop) are left out: no image says anything there.
double truth_intensity_correlation(const std::vector<double>& ac_rec, std::int64_t M, double scale,
                                   const Quaternion& g, const TruthModel& truth, bool anisotropic,
                                   double q_low = 0);
// Both at once, from one evaluation of the reconstruction (what a generation's scores use);
// -2 each without a truth.
struct TruthIntensityScores {
  double isotropic = -2, anisotropic = -2;
};
TruthIntensityScores truth_intensity_scores(const std::vector<double>& ac_rec, std::int64_t M,
                                            double scale, const Quaternion& g,
                                            const TruthModel& truth, double q_low = 0);

}  // namespace nufftmp::mtip
