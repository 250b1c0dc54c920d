// M-TIP (multi-tiered iterative phasing) for single-particle X-ray diffraction: the pieces of
// the reconstruction loop, each usable and testable on its own, and the loop itself.
//
// Conventions shared by every piece:
//  - A volume of side M is stored x fastest, index i <-> signed position/mode k = i - M/2
//    (integer division; "centred" order, the NUFFT's modeord 0).
//  - The model is the autocorrelation ac of the density on the M^3 lattice of lags; the
//    intensity at a scaled reciprocal point x in [-pi, pi)^3 is its Fourier series
//    I(x) = sum_k ac_k exp(i k.x) (ac is real and even, so the sign does not matter).
//    Slicing is therefore a 3D type 2 NUFFT and merging inverts it.
//  - Reciprocal positions q (1/Angstrom) become NUFFT coordinates x = scale * R q, with
//    scale = pi (1 - 1e-6) / q_max so every pixel of every orientation lies inside (-pi, pi).
//    exp(i k.x) = exp(2 pi i (k scale / 2 pi).q), so the real-space voxel of the M^3 lattice
//    is dx = scale / (2 pi) = (1 - 1e-6) / (2 q_max) Angstrom.
//  - Orientations are unit quaternions (w, x, y, z); image j sees the model at R(q_j) p for
//    its detector positions p.
//  - Every function taking an MPI communicator is collective over it; an error on one rank
//    is thrown as the same nufftmp::Error on every rank.
#pragma once

#include <mpi.h>

#include <array>
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "nufftmp/dist.hpp"
#include "nufftmp/errors.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp::mtip {

using Vec3 = std::array<double, 3>;

// ---------------------------------------------------------------- geometry (geometry.cpp)
struct Quaternion {
  double w = 1, x = 0, y = 0, z = 0;
};

Quaternion quat_multiply(const Quaternion& a, const Quaternion& b);
Quaternion quat_conjugate(const Quaternion& q);
Quaternion quat_normalized(const Quaternion& q);
Vec3 quat_rotate(const Quaternion& q, const Vec3& v);
// Row-major 3x3 rotation matrix of a unit quaternion.
std::array<double, 9> quat_to_matrix(const Quaternion& q);
// Angle (radians, in [0, pi]) of the rotation taking a to b; q and -q are the same rotation.
double quat_angle(const Quaternion& a, const Quaternion& b);
// Uniform on SO(3) (Shoemake's subgroup algorithm).
Quaternion random_quaternion(std::mt19937_64& rng);
// A deterministic near-uniform set of n orientations (super-Fibonacci spiral on S^3).
std::vector<Quaternion> reference_orientations(std::int64_t n);
// Largest angle from a random orientation to its nearest member of refs, estimated from
// `probes` random orientations: the covering radius of the set ("grid spacing").
double covering_angle(const std::vector<Quaternion>& refs, int probes, std::uint64_t seed);

// A flat detector normal to the beam (beam along +z), centred on it.
struct Detector {
  std::int64_t nx = 64, ny = 64;
  double pixel_size = 1e-4;  // metres
  double distance = 0.1;     // metres, sample to detector
  double wavelength = 2.0;   // Angstrom
};
// Reciprocal positions q = k_out - k_in (1/Angstrom) on the Ewald sphere, layout [3, ny, nx].
std::vector<double> pixel_positions_reciprocal(const Detector& det);
// The scale taking reciprocal positions (layout [3, npix]) into (-pi, pi)^3 for any rotation.
double reciprocal_scale(const std::vector<double>& positions);
// NUFFT coordinates of n_orient slices: x[o*npix + p] = scale * (R(orient[o]) p)_x, etc.
// positions: layout [3, npix].
template <typename T>
void slice_points(const std::vector<double>& positions, const Quaternion* orient,
                  std::int64_t n_orient, double scale, T* x, T* y, T* z);

// ---------------------------------------------------------------- MPI status (mpi_status.cpp)
// Agreement on status before continuing: every rank passes its own error (empty = ok); if any
// rank failed, every rank throws Error(code) with the message of the lowest failing rank.
void agree_on_status(MPI_Comm comm, ErrorCode code, const std::string& local_error);
// Runs fn on every rank; an exception on any rank is rethrown on all (as above).
void collective(MPI_Comm comm, const std::function<void()>& fn);
// Near-equal contiguous share of n items: [first, first + count) for rank of size.
struct Share {
  std::int64_t first = 0, count = 0;
};
Share share_of(std::int64_t n, int rank, int size);

// ---------------------------------------------------------------- HDF5 data sets (h5io.cpp)
// File layout (issue 5): intensities [n_images, ny, nx] float, pixel_position_reciprocal
// [3, ny, nx], optional orientations [n_images, 4] (w, x, y, z), optional volume [M, M, M].
struct DataInfo {
  std::int64_t n_images = 0, ny = 0, nx = 0;
  bool has_orientations = false;
  bool has_volume = false;
  std::int64_t volume_M = 0;
};
// Collective: every rank opens the file read-only and checks names and shapes.
DataInfo probe_data(MPI_Comm comm, const std::string& path);
// Collective: this rank's hyperslab of images [first, first+count) (float, [count, ny, nx]),
// all pixel positions ([3, ny*nx]), and orientations when present and wanted.
// NaN/Inf in any of them is an error naming the data set and index.
struct LocalImages {
  Share share;
  std::vector<float> intensities;
  std::vector<double> positions;
  std::vector<Quaternion> orientations;  // empty unless asked for
};
LocalImages read_local_images(MPI_Comm comm, const std::string& path, const DataInfo& info,
                              bool with_orientations);
// Collective: volume [M, M, M] read by every rank (double).
std::vector<double> read_volume(MPI_Comm comm, const std::string& path,
                                const std::string& name = "volume");

// Writes one HDF5 file atomically and durably: everything goes to a temporary file of a unique
// name ("<path>.tmp.<pid>.<n>.<random>") in path's directory, created by the constructor (so a
// path that cannot be written fails there, before any work); commit() fsyncs it, renames it over
// path and fsyncs the directory. A symlink at path is followed (its target is replaced); a
// directory, device, fifo or socket there is an Error(IoFailure). Destroying an uncommitted
// writer removes the temporary file. IfExists::Refuse: an existing file at path is an
// Error(IoFailure) naming it. Single process.
enum class IfExists { Replace, Refuse };
class H5Writer {
 public:
  explicit H5Writer(const std::string& path, IfExists if_exists = IfExists::Replace);
  ~H5Writer();
  H5Writer(const H5Writer&) = delete;
  H5Writer& operator=(const H5Writer&) = delete;
  void write(const std::string& name, const std::vector<std::int64_t>& dims, const float* data);
  void write(const std::string& name, const std::vector<std::int64_t>& dims, const double* data);
  void write_attribute(const std::string& name, double value);  // on the root group
  void write_attribute(const std::string& name, const std::string& value);
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
// Reads a scalar attribute of the root group (single process); throws IoFailure when absent.
double read_attribute(const std::string& path, const std::string& name);
// A string attribute of the root group (fixed or variable length); IoFailure when absent.
std::string read_string_attribute(const std::string& path, const std::string& name);
bool has_attribute(const std::string& path, const std::string& name);
// Single process: the whole data set as double (any stored float type), with its dims.
std::vector<double> read_dataset(const std::string& path, const std::string& name,
                                 std::vector<std::int64_t>* dims = nullptr);

// ---------------------------------------------------------------- simulation (simulate.cpp)
struct Molecule {
  std::vector<Vec3> atoms;  // lattice units, about the origin
  std::vector<double> weight;
  double sigma = 1.0;  // Gaussian radius, lattice units
};
// n_atoms at random in a ball that keeps the autocorrelation inside the M^3 lattice.
Molecule random_molecule(std::int64_t n_atoms, std::int64_t M, double sigma, std::uint64_t seed);
// n_atoms in four clusters of unequal weight at non-coplanar, unequal positions: a molecule
// whose intensity has no rotational symmetry even at low resolution (a round blob has nearly
// every symmetry there, which starves orientation matching).
Molecule clustered_molecule(std::int64_t n_atoms, std::int64_t M, double sigma, std::uint64_t seed);
// ATOM/HETATM records of a PDB file, centred, converted to lattice units with voxel dx
// (Angstrom). Throws if the molecule does not fit (autocorrelation inside M^3).
Molecule pdb_molecule(const std::string& path, double dx, std::int64_t M, double sigma);
// Density on the M^3 lattice (centred order).
std::vector<double> density_on_grid(const Molecule& mol, std::int64_t M);
// |F(x_j)|^2 with F(x) = sum_n rho_n exp(-i n.x), through a 3D type 2 NUFFT.
template <typename T>
std::vector<double> diffraction_intensities(const std::vector<double>& density, std::int64_t M,
                                            std::int64_t n_points, const T* x, const T* y,
                                            const T* z, double tol, const Options& opts);
// Replaces each value v by a Poisson draw of mean v.
void add_poisson_noise(std::vector<float>& values, std::mt19937_64& rng);

// ---------------------------------------------------------------- volumes (volume_ops.cpp)
// Exact autocorrelation of a density with no wrap-around (support within half the lattice),
// through zero-padded FFTs: ac_m = sum_n rho_{n+m} rho_n.
std::vector<double> autocorrelation(const std::vector<double>& density, std::int64_t M);
// Intensity on the M^3 reciprocal lattice x = 2 pi k / M (centred order) from the ac.
std::vector<double> intensity_from_ac(const std::vector<double>& ac, std::int64_t M);
// Pearson correlation of two arrays.
double correlation(const std::vector<double>& a, const std::vector<double>& b);
// Best Pearson correlation of rec with ref over circular translations and inversion
// (rec(-r)); the aligned copy of rec in *aligned when given.
double aligned_correlation(const std::vector<double>& rec, const std::vector<double>& ref,
                           std::int64_t M, std::vector<double>* aligned = nullptr);
// A reconstruction from unknown orientations is the truth seen in an arbitrary frame: its
// orientations are q_rec = g q_true for one global rotation g (and its model is the truth
// rotated by R(g)), which translation and inversion alone cannot undo.
// The least-squares mean of q_rec[i] conj(q_true[i]) (the eigenvector of the largest
// eigenvalue of sum_i p_i p_i^T, sign-free): g. *spread, when given: the fraction of the sum
// that eigenvalue holds (1: every image agrees on g; 0.25: no common rotation).
// accumulate_rotation_moments adds this rank's images to m (16 values, row-major 4x4) for an
// all-reduce before mean_rotation_from_moments.
void accumulate_rotation_moments(const std::vector<Quaternion>& rec,
                                 const std::vector<Quaternion>& truth, double* m);
Quaternion mean_rotation_from_moments(const double* m, double* spread = nullptr);
// The density seen in the truth's frame: out(r) = rho(R(g) r) about its own circular centre of
// mass (through its Fourier series at the rotated lattice, by a type 2 NUFFT on the CPU).
std::vector<double> rotate_density(const std::vector<double>& rho, std::int64_t M,
                                   const Quaternion& g);
// Pearson correlation of two intensity models (autocorrelations, centred order) over the
// lattice points inside the ball |k| <= M/2, rec read at R(g) k: I_rec(R(g) y) vs I_ref(y).
// shell_weighted: each point weighted by |k|^2 (a radial-shell mean would otherwise be ruled
// by the bright centre, which carries no orientation information).
double rotated_intensity_correlation(const std::vector<double>& ac_rec,
                                     const std::vector<double>& ac_ref, std::int64_t M,
                                     const Quaternion& g, bool shell_weighted = false);

// ---------------------------------------------------------------- slicing (slicing.cpp)
// Evaluates a model (M^3 modes, centred order) at slice points: a 3D type 2 NUFFT batched
// over the points of all orientations of this rank (isign +1).
template <typename T>
class Slicer {
 public:
  Slicer(std::int64_t M, double tol, const Options& opts = Options());
  ~Slicer();
  Slicer(Slicer&&) noexcept;
  void set_points(std::int64_t n_points, const T* x, const T* y, const T* z);
  void slice(const std::complex<T>* model, std::complex<T>* values);
  // Real model in, real part of the slices out (ac is real and even).
  void slice_real(const std::vector<double>& model, std::vector<T>& values);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------- merging (merging.cpp)
struct MergeOptions {
  double lambda = 1e-3;   // Tikhonov weight, relative to the mean diagonal of A^H D A
  int max_iter = 200;
  // Relative residual of the normal equations. The fine detail that phasing needs converges
  // last: on the demo data the phased density's correlation with the truth is 0.947 at 1e-4,
  // 0.951 at 1e-5 and 0.976 at 1e-6 (the autocorrelation's own correlation is > 0.999 at all).
  double tol = 1e-6;
  double nufft_tol = 0;   // 0: 1e-5 (float) / 1e-9 (double)
  // CG preconditioned by T. Chan's circulant approximation of A^H D A (two M^3 FFTs per
  // step): at tol 1e-6 about half the iterations (demo: 109 instead of 203), but it also
  // converges the noise-dominated directions sooner, which plain CG leaves damped (a small
  // data set phased to 0.89 instead of 0.94 correlation). Off by default.
  bool precondition = false;
};
struct MergeReport {
  int iterations = 0;
  double residual = 0;      // final relative residual
  double kernel_ms = 0;     // Toeplitz kernel (type 1 of the weights + FFT)
  double rhs_ms = 0;        // A^H D b
  double cg_ms = 0;
  // Of kernel_ms + rhs_ms, the time in the two type 1 NUFFTs (plan creation, set_points and
  // execute): the weights' transform onto the 2M lattice and A^H D b. kernel_ms and the
  // kernel's part of nufft_ms belong to set_points: every solve after it reports them again.
  double nufft_ms = 0;
};
// Solves (A^H D A + lambda_abs I) ac = A^H D b, A the slicing operator of every rank's points;
// each rank passes its own points, weights and data; the result is the same on every rank.
// A^H D A is a convolution with the type 1 transform of the weights on the 2M lattice
// (Toeplitz embedding), applied with FFTs. Both type 1 transforms are distributed NUFFTs
// (dist::DistPlan, all-reduce), so every rank's images count on every rank.
template <typename T>
class Merger {
 public:
  // Collective. The engine and device come from the context (opts: tolerance-free options).
  Merger(dist::Context& ctx, std::int64_t M, const MergeOptions& mopts,
         const Options& opts = Options());
  // Collective. Makes its own context over comm (engine: opts.backend, device: opts.gpu_device).
  Merger(MPI_Comm comm, std::int64_t M, const MergeOptions& mopts, const Options& opts = Options());
  ~Merger();
  Merger(Merger&&) noexcept;
  // Collective. weights may be null (all ones).
  void set_points(std::int64_t n_points, const T* x, const T* y, const T* z, const T* weights);
  // Collective. data: n_points values. ac: in = start (empty: zero), out = solution (real).
  MergeReport solve(const T* data, std::vector<double>& ac);
  // The pieces, for tests: A^H D b (collective) and the Toeplitz normal operator (local).
  void adjoint(const T* data, std::vector<std::complex<double>>& out);
  void apply_normal(const std::vector<std::complex<double>>& in,
                    std::vector<std::complex<double>>& out);
  double weight_sum() const;  // sum of all ranks' weights

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------- phasing (phasing.cpp)
struct PhaseOptions {
  int cycles = 10;             // each: hio_iter HIO steps, er_iter ER steps, shrink-wrap
  int hio_iter = 40;
  int er_iter = 10;
  double beta = 0.9;
  double shrink_sigma_start = 2.0;  // Gaussian blur of shrink-wrap (voxels), decays to end
  double shrink_sigma_end = 0.7;
  double shrink_threshold = 0.12;   // support = blurred > threshold * max
  std::uint64_t seed = 1;
  int attempts = 1;  // independent random starts (fresh phasing only); lowest error wins
};
struct PhaseResult {
  std::vector<double> density;  // real, >= 0, centred order
  std::vector<char> support;
  double fourier_error = 0;     // || |F| - A || / ||A||
  int iterations = 0;
};
// From the autocorrelation (centred order) to a real, positive density. start: a previous
// density to continue from (empty: random inside the autocorrelation's support, best of
// popts.attempts starts).
PhaseResult phase(const std::vector<double>& ac, std::int64_t M, const PhaseOptions& popts,
                  const std::vector<double>& start = {});

// ---------------------------------------------------------------- matching (matching.cpp)
struct MatchOptions {
  std::int64_t batch = 256;  // reference slices computed at a time
  // Fit a scale per image and reference (min_a ||b - a s||^2, i.e. max (b.s)^2/||s||^2 with
  // b.s > 0): robust to a model whose overall scale is off, as early in the loop.
  bool fit_scale = false;
  double nufft_tol = 0;      // 0: 1e-5 (float) / 1e-9 (double)
  // Per-pixel weights w_p >= 0 (npix values, pixel order of the images; empty: all ones):
  // the cost becomes sum_p w_p (b_p - s_p)^2, so 0 masks a pixel (beam stop, dead pixels).
  std::vector<float> pixel_weights;
  // Also weight each pixel by 1 / (mean intensity of the images at that pixel, all ranks):
  // the Poisson variance. Unweighted least squares is ruled by the bright centre of the
  // pattern, which is nearly isotropic and says little about the orientation.
  bool poisson_weights = false;
};
struct MatchReport {
  double slicing_ms = 0, gemm_ms = 0;
  double exchange_ms = 0;  // all-gather of the ranks' reference slices (collective version)
};
// For each local image (n_images x npix, row-major), the index of the reference orientation
// whose model slice is nearest in least squares (min ||s_r||^2 - 2 b.s_r, or with a fitted
// scale, see MatchOptions). Local work only.
template <typename T>
std::vector<std::int64_t> match_orientations(const std::vector<double>& model, std::int64_t M,
                                             const std::vector<Quaternion>& refs,
                                             const std::vector<double>& positions, double scale,
                                             const float* images, std::int64_t n_images,
                                             const MatchOptions& mopts, const Options& opts,
                                             MatchReport* report = nullptr);
// Collective: the same answer for this rank's images, with the references split across the
// ranks of comm (each slices its share; the slices are all-gathered a batch at a time, so
// slicing is not repeated on every rank). refs, positions and options must agree on all ranks.
template <typename T>
std::vector<std::int64_t> match_orientations(MPI_Comm comm, const std::vector<double>& model,
                                             std::int64_t M, const std::vector<Quaternion>& refs,
                                             const std::vector<double>& positions, double scale,
                                             const float* images, std::int64_t n_images,
                                             const MatchOptions& mopts, const Options& opts,
                                             MatchReport* report = nullptr);

// Collective: the k best references of each local image (k <= refs.size(), else clamped),
// best first, with their costs (the quantity minimised above; lower is better, differences
// are what count): index[i * k + j], cost[i * k + j]. k = 1 is match_orientations.
struct TopMatches {
  std::int64_t k = 0;
  std::vector<std::int64_t> index;
  std::vector<double> cost;
};
template <typename T>
TopMatches match_top_k(MPI_Comm comm, const std::vector<double>& model, std::int64_t M,
                       const std::vector<Quaternion>& refs, const std::vector<double>& positions,
                       double scale, const float* images, std::int64_t n_images, std::int64_t k,
                       const MatchOptions& mopts, const Options& opts,
                       MatchReport* report = nullptr);
// Soft-assignment weights of TopMatches: per image, w_j = exp(-(cost_j - cost_0) / temperature)
// normalised to sum 1 (temperature in cost units, > 0).
std::vector<double> soft_weights(const TopMatches& m, double temperature);

// ---------------------------------------------------------------- the loop (reconstruct.cpp)
struct ReconstructOptions {
  std::string input, output, checkpoint;  // checkpoint "" = <output>.ckpt.h5
  bool known_orientations = false;
  int generations = 5;
  std::int64_t M = 0;  // 0: volume size of the input if present, else 33
  // Reference orientations at full resolution. Hard matching snaps each image to its nearest
  // reference, so the set's spacing should approach the speckle's angular size at the edge of
  // the detector (about 2 / M radians): on the CPU demo (M = 33), 2000 references (covering
  // angle 16 deg) phase at best to 0.92 even with the true orientations snapped to them and
  // confuse a fifth of the images with their Friedel twin (rotated 180 deg about the beam);
  // 20000 (7 deg) reach 0.97, as the true orientations do.
  std::int64_t n_ref = 20000;
  // Soft assignment: each image is merged at its soft_k best orientations, weighted by
  // soft_weights with a temperature going geometrically from soft_temp_start (generation 2,
  // the first match) to soft_temp_end (last generation), in units of the mean over all images
  // of the spread cost_{k-1} - cost_0 (scale-free). soft_k = 1: hard best match.
  // Off by default: the numbers once recorded against it (0.63-0.81 on the CPU demo, as hard
  // matching) were taken matching against the phased model with 2000 references, and measured
  // without undoing the frame rotation; hard matching against the merged model converges (see
  // n_ref, match_iterations, match_phased). Kept for experiments: the merge takes it at any k
  // for the cost of one slice per used reference.
  std::int64_t soft_k = 1;
  double soft_temp_start = 1.0, soft_temp_end = 0.2;
  // Resolution ramp: generation 2 (the first match) matches only the pixels with
  // |q| <= q_ramp_start * q_max, and the cut rises linearly to q_max over q_ramp_generations
  // matching generations (-1: the first two thirds of them; 1.0 or 0: every pixel from the
  // start). Low q first: few, wide minima that a coarse reference set resolves, so the early
  // rounds are cheap and the model's envelope settles before its detail is asked for.
  double q_ramp_start = 0.3;
  int q_ramp_generations = -1;
  // The orientations an image's cut can tell apart scale as 1 / q: with the ramp the reference
  // set grows as (cut / q_max)^3 up to n_ref, from at least n_ref_min.
  std::int64_t n_ref_min = 500;
  // Match and merge this many times per generation before phasing. From a random start the
  // assignment needs tens of match/merge rounds to lock in (hard assignment is an EM-like
  // fixed-point iteration); phasing between each would only cost time.
  int match_iterations = 3;
  // Model the images are matched against: the merged autocorrelation (false, default) or the
  // phased density's autocorrelation (true). Early on the merge is inconsistent and phasing
  // it fails (Fourier error 0.3-0.4): its autocorrelation is then further from the data than
  // the merge, and matching against it never left random orientations on the CPU demo.
  bool match_phased = false;
  // A fresh run refuses to replace an existing output or checkpoint unless overwrite is set;
  // resume continues both (see README, "Outputs and checkpoints").
  bool resume = false;
  bool overwrite = false;
  bool use_double = false;
  MergeOptions merge;
  PhaseOptions phase;
  MatchOptions match;
  Options nufft;
  std::uint64_t seed = 7;
  bool verbose = true;  // progress lines on rank 0
};
struct GenerationReport {
  int generation = 0;
  // slicing_ms: the reference slices of matching (type 2 NUFFTs); matching_ms: the rest of
  // matching (products, selection, and the intermediate merges of several match rounds).
  double slicing_ms = 0, matching_ms = 0, merging_ms = 0, phasing_ms = 0;
  // Time in NUFFTs (set_points and execute) within the three stages above: the reference
  // slices and every merge's two type 1 transforms.
  double nufft_ms = 0;
  int cg_iterations = 0;
  double cg_residual = 0, fourier_error = 0;
  // Density correlation with the ground truth when present, else -2: aligned over translation
  // and inversion and, from unknown orientations, over the frame (the global rotation of the
  // reconstructed orientations against the file's true ones, when the file has them).
  double correlation = -2;
  // Intensity (|k|^2-weighted Pearson over the ball |k| <= M/2) in the same frame, -2 if no truth.
  double intensity_correlation = -2;
  // Median angle (degrees) between each image's orientation and its truth after removing the
  // global rotation (-1 without true orientations), and the frame agreement (1: one common
  // rotation for every image; 0.25: none).
  double orientation_error_deg = -1, frame_agreement = 0;
  std::int64_t n_ref = 0;   // references matched against this generation (0: none)
  double q_cut = 0;         // matched pixels' |q| limit, fraction of q_max
};
// Collective. Runs the generations, writes output (and the checkpoint) every generation.
std::vector<GenerationReport> reconstruct(MPI_Comm comm, const ReconstructOptions& ropts);

}  // namespace nufftmp::mtip
