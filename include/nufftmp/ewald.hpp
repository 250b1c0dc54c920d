// Periodic electrostatics by Ewald summation with NUFFTs (the "NFFT-based Ewald" / ENUF
// scheme) on the distributed plan: energy, potentials and forces of point charges in an
// orthorhombic periodic box, the ions spread over the ranks of a dist::Context.
//
// Units: Gaussian-like, Coulomb constant 1 (two unit charges at distance r have energy 1/r);
// tin-foil boundary conditions (no surface-dipole term). With r_ij^n = r_i - r_j + n o L,
//   E = 1/2 sum_n sum'_{i,j} q_i q_j / |r_ij^n|,   phi_i = dE/dq_i,   F_i = -dE/dr_i,
// split with the parameter alpha into
//   real space   1/2 sum' q_i q_j erfc(alpha r)/r over pairs closer than rcut (cell list),
//   reciprocal   2 pi/V sum_{k != 0} exp(-k^2/(4 alpha^2))/k^2 |S(k)|^2,
//                S(k) = sum_j q_j exp(i k.r_j): one 3D type 1 NUFFT of the charges (each rank
//                its own ions, summed over the ranks by dist::DistPlan); potentials and forces
//                at every rank's own ions by one type 2 of 4 vectors (ntransf = 4: the
//                potential and the gradient by i k in the mode array), or 1 without forces,
//   self         -alpha/sqrt(pi) sum q_i^2,
//   background   -pi Q^2/(2 V alpha^2) for a net charge Q (only with Options::neutralize).
// Double precision only: the Madelung constants are checked to 1e-10, far below float.
//
// Parallel layout: the ions may come in any distribution over the ranks. Each compute()
// moves them to slabs along z (rank r owns z in [r, r+1) Lz/P) plus the halo within rcut of
// the slab, runs the real-space part on the owned ions (on the GPU with the CUDA engine),
// the NUFFTs on the owned ions, and sends the potentials and forces back to the ranks and in
// the order the ions came in.
//
// Errors (nufftmp::Error, on every rank: an error seen on one rank reaches all of them, so no
// rank is left in a collective): a non-finite position (BadPoints) or charge, a non-positive
// or non-finite box, rcut with 2 rcut > min(L), ions closer than Options::min_distance, a net
// charge without Options::neutralize, parameters that differ between ranks (InvalidArgument).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nufftmp/dist.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp::ewald {

// The periodic box [0, L[0]) x [0, L[1]) x [0, L[2]); positions outside it are taken modulo L.
struct Box {
  std::array<double, 3> L{1.0, 1.0, 1.0};
  double volume() const { return L[0] * L[1] * L[2]; }
};

struct Options {
  // Requested accuracy: the RMS error of the potentials relative to q_rms/d and of the forces
  // relative to q_rms^2/d^2 (d = (V/N)^(1/3), the mean ion spacing), as predicted by
  // Kolafa-Perram-style estimates for each part (src/ewald/error_estimates.hpp); the RMS
  // errors measured against a direct Ewald sum stay below 0.6 x the accuracy (tests/ewald).
  // 1e-14 .. 1e-1.
  double accuracy = 1e-6;
  double rcut = 0;    // real-space cut-off; 0: chosen by the cost model (2 rcut <= min L)
  double alpha = 0;   // splitting parameter; 0: the smallest meeting the accuracy at rcut
  std::array<std::int64_t, 3> modes{0, 0, 0};  // Fourier modes per axis; 0: from the accuracy
  double nufft_tol = 0;  // 0: matched to the accuracy (src/ewald/parameters.cpp)
  bool forces = true;
  // A net charge is an error unless neutralize: then a uniform neutralising background is
  // added (its energy is Result::energy_background).
  bool neutralize = false;
  double min_distance = 0;  // two ions closer than this are an error; 0: 1e-6 d
  // Memory one rank may hold (bytes): with the CUDA engine device memory (the plans' fine
  // grids, FFT work areas and sorted points, the mode arrays, the ions, cell list and results:
  // Parameters::memory, src/ewald/memory_model.hpp), with the CPU engine host memory. 0: 80%
  // of the free device memory (CUDA) or 50% of the physical memory (CPU), divided among the
  // ranks that share the GPU or the node (every rank holds the whole mode array). When the
  // accuracy-optimal parameters do not fit, in this order: the per-phase device buffers are
  // freed after each phase (Parameters::phase_buffers), the type 2 transforms its vectors one
  // at a time (Parameters::type2_batch), then the mode count is capped and rcut grows (more
  // real-space work; Parameters::memory_capped). OutOfMemory when even that cannot fit.
  double memory_budget_bytes = 0;
  // NUFFT options (upsampfac, method, threads, ...); the backend comes from the Context.
  nufftmp::Options nufft;
  // With the CUDA engine: the real-space part on the GPU too (else on the host, OpenMP).
  bool real_space_on_gpu = true;
};

// The estimated memory of one rank (bytes; src/ewald/memory_model.hpp has the model).
struct MemoryEstimate {
  double grid_type1 = 0, grid_type2 = 0;  // the plans' fine grids (type 2: its batch)
  double fine_grids = 0;                  // their sum
  double fft_work = 0;                    // cuFFT work areas (CUDA)
  double plan_points = 0;                 // both plans' sorted points
  double modes = 0;                       // mode arrays (S / type 2 input), per-mode energies
  double held = 0;                        // ions and real-space sums, kept for the step
  double real_space = 0;                  // the real-space phase's buffers (cell list, sort)
  double reciprocal = 0;                  // NUFFT inputs, type 2 values, energies
  bool phased = false;                    // the phases' buffers take turns (peak below)
  double upsampfac_type1 = 0, upsampfac_type2 = 0;  // the plans' sigma (their own choice)
  // Each plan's share (its grid, FFT work, points), to set beside Plan::memory_bytes.
  double plan_type1 = 0, plan_type2 = 0;
  double peak() const;
  std::string describe() const;  // one line, GB
};

// What the solver runs with: chosen by choose_parameters, the same on every rank.
struct Parameters {
  double alpha = 0, rcut = 0;
  std::array<std::int64_t, 3> modes{0, 0, 0};  // odd counts: k_i = 2 pi n_i / L_i, |n_i| <= modes_i / 2
  double nufft_tol = 0;
  double spacing = 0;  // d = (V/N)^(1/3)
  // Predicted RMS errors, relative (see Options::accuracy): of the real-space cut-off, of the
  // modes left out (the systematic self-interaction share included) and of the NUFFTs.
  double est_real_potential = 0, est_recip_potential = 0, est_nufft_potential = 0;
  double est_real_force = 0, est_recip_force = 0, est_nufft_force = 0;
  // Memory (Options::memory_budget_bytes): the budget as resolved (0: none), the type 2's
  // batch (its plan's maxbatchsize: 2 vectors with forces, mode_array.hpp), whether the CUDA
  // engine frees each phase's buffers after it, whether the modes were capped below the
  // accuracy-optimal choice to fit, and the estimate at these parameters.
  double memory_budget = 0;
  int type2_batch = 1;
  bool phase_buffers = false;
  bool memory_capped = false;
  MemoryEstimate memory;
  std::string describe() const;  // one line (the memory: memory.describe())
};

// Pure (no MPI): the parameters for n_total ions in box over `ranks` z-slabs, given the
// options (accuracy, and any of rcut, alpha, modes, nufft_tol fixed by the caller; the
// memory model follows opts.nufft.backend: Cuda, or else the CPU engine's).
// memory_budget_bytes: per rank, as resolved (> 0; 0 = no limit): the parameters are chosen so
// that the estimate fits (see Options::memory_budget_bytes). Throws InvalidArgument naming the
// bad option or box value, OutOfMemory when nothing fits.
Parameters choose_parameters(const Box& box, std::int64_t n_total, const Options& opts,
                             double memory_budget_bytes, int ranks = 1);

// Times of the last compute() on this rank (milliseconds).
struct Timings {
  double real_ms = 0;      // cell list + real-space pairs
  double nufft_ms = 0;     // set_points and execute of the type 1 and type 2 (local compute)
  double modes_ms = 0;     // the Green's function and gradient in the mode array, E_recip
  double comm_ms = 0;      // ions to slabs and back, the NUFFT reductions, scalar reductions
  double transfer_ms = 0;  // host <-> device copies (CUDA engine)
  double total_ms = 0;     // the whole call
};

struct Result {
  double energy = 0;  // total, the same on every rank
  double energy_real = 0, energy_recip = 0, energy_self = 0, energy_background = 0;
  double net_charge = 0, sum_q2 = 0;
  std::int64_t n_total = 0;
  // This rank's ions, in the order they were given.
  std::vector<double> potential;
  std::vector<double> fx, fy, fz;  // empty unless Options::forces
  Parameters parameters;
  Timings timings;
  // Measured on this rank after the step (bytes): the two plans' working memory
  // (Plan::memory_bytes) and the most the solver's own buffers held at once (CUDA: device
  // buffers; CPU: 0, not measured), next to Parameters::memory.
  double memory_type1_plan = 0, memory_type2_plan = 0, memory_solver_peak = 0;
};

class Solver {
 public:
  // Collective. The options must agree on every rank (InvalidArgument otherwise).
  Solver(dist::Context& ctx, const Box& box, const Options& opts = Options());
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  // Collective. This rank's ions (n_local may be 0). The NUFFT plans are made on the first
  // call and kept while the chosen parameters stay the same (same ion count), so a
  // molecular-dynamics step costs set_points + execute.
  Result compute(std::int64_t n_local, const double* x, const double* y, const double* z,
                 const double* q);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- systems: built-in crystals and files -------------------------------------------------

// This rank's ions of a periodic system.
struct System {
  Box box;
  std::vector<double> x, y, z, q;
  std::int64_t size() const { return static_cast<std::int64_t>(q.size()); }
};

enum class Crystal { NaCl, CsCl, ZincBlende, Fluorite };
const char* crystal_name(Crystal c) noexcept;  // "nacl", "cscl", "zincblende", "fluorite"

// Facts of a crystal with nearest-neighbour (cation-anion) distance r0 = 1.
//   Madelung constant  M = -E r0 / (n_formula_units * z_cation * |z_anion|),
// E the electrostatic energy of the periodic crystal. For NaCl, CsCl and zinc blende
// (charges +1/-1) this is the usual per-ion-pair constant referred to r0; for fluorite CaF2
// (Ca +2, F -1) it is per formula unit, referred to the Ca-F distance and divided by
// z_Ca |z_F| = 2: 2.51939 (the value without that division, 5.03878, is quoted with
// E = -M e^2/r0 per formula unit).
struct CrystalInfo {
  const char* name;
  int ions_per_cell;           // conventional cubic cell
  int formula_units_per_cell;
  double cell_edge;            // a in units of r0
  double z_cation, z_anion;
  double madelung_literature;  // the reference value above
};
CrystalInfo crystal_info(Crystal c);

// This rank's share of an n x n x n supercell of conventional cells (r0 = 1): the cells are
// split into near-equal contiguous ranges in (z, y, x) order, so every rank's ions lie in
// z-slabs (ready for the solver's slab layout). Pure.
System make_crystal(Crystal c, int n, int rank = 0, int size = 1);
// The Madelung constant of crystal c from the total energy of its n^3 supercell.
double madelung_constant(Crystal c, int n, double energy);

// A random neutral system: n_total ions (n_total even: half +1, half -1) uniformly in a cube
// of density `density`, this rank's near-equal share, drawn in z-slabs from a seed (the same
// system for any rank count). Pure.
System make_random_system(std::int64_t n_total, double density, std::uint64_t seed,
                          int rank = 0, int size = 1);

// Collective: the root reads `path` and the ions are scattered over the ranks (near-equal
// shares in file order). Formats by extension:
//   .xyz        extended XYZ: line 1 the ion count; line 2 holds Lattice="Lx 0 0 0 Ly 0 0 0 Lz"
//               (orthorhombic: off-diagonal entries 0); then one line per ion
//               "name x y z charge".
//   .h5 .hdf5   data sets /box (3), /positions (N x 3), /charges (N), double (HDF5 builds).
// Errors: IoFailure (unreadable, malformed: line and field named), InvalidArgument.
System read_system(const dist::Context& ctx, const std::string& path, int root = 0);
// Collective: gathers every rank's ions to the root, which writes `path` (format by
// extension as above). Ion names in XYZ are "Q+" / "Q-" by the charge's sign.
void write_system(const dist::Context& ctx, const std::string& path, const System& local,
                  int root = 0);

}  // namespace nufftmp::ewald
