// Options of a plan. Every field has a default that suits most users; zero means "choose for me".
#pragma once

#include <cstdint>

namespace nufftmp {

enum class Backend { Auto, Cpu, Cuda };

// Spreading (type 1) / interpolation (type 2) organisation. The CPU engine accepts Auto only
// (any other value is treated as Auto); the CUDA engine implements each.
enum class Method {
  Auto = 0,
  GM = 1,       // global-memory atomics, points in user order
  GMSort = 2,   // global-memory atomics, points bin-sorted
  SM = 3,       // shared-memory subproblems (type 1); shared-memory tiles (type 2)
  Output = 4,   // output-driven: one block per bin tile, several points in flight (type 1)
};

enum class KernelEval { Horner, Direct };

struct Options {
  Backend backend = Backend::Auto;
  Method method = Method::Auto;
  KernelEval kernel_eval = KernelEval::Horner;
  int modeord = 0;          // 0: modes in increasing order (CMCL); 1: FFT order
  double upsampfac = 2.0;   // sigma: 2.0 or 1.25 (any value in [1.25, 2.0] accepted)
  int nthreads = 0;         // CPU engine: OpenMP threads, 0 = all
  int maxbatchsize = 0;     // vectors transformed together, 0 = choose
  bool sort = true;         // bin-sort points in set_points (CPU: always recommended)
  int debug = 0;            // >0 prints timings and choices to stderr
  // Warnings on stderr when a parameter is adjusted (e.g. a tolerance below what the precision
  // reaches is clamped). A DistPlan prints them once, on rank 0. false: silent.
  bool warnings = true;
  // Types 1/2: spread or interpolate only, no FFT and no deconvolution (FINUFFT's
  // spreadinterponly). The "modes" are then the fine grid itself: N_i cells per axis (each at
  // least twice the kernel width), cell g at x = 2 pi g / N_i, x fastest; type 1 adds
  // c_j phi(g - x_j N / 2pi) (periodically, phi the kernel in cells, peak 1) into f, type 2 reads
  // c_j = sum_g f[g] phi(...). The kernel follows from tol and upsampfac as usual; modeord has
  // no effect.
  bool spread_interp_only = false;

  // CUDA engine only.
  int gpu_device = -1;          // -1 = the current device of the calling thread
  // A cudaStream_t; nullptr = the default stream. The stream must outlive the plan: the plan's
  // device buffers are freed in stream order on it when the plan is destroyed.
  void* cuda_stream = nullptr;
  int binsize[3] = {0, 0, 0};   // spreading bin size per dim; 0 = heuristic from the GPU
  int maxsubprobsize = 0;       // SM: points per subproblem; 0 = heuristic
  int points_per_block = 0;     // output-driven: points staged per batch; 0 = heuristic
  bool autotune = false;        // time candidates once, cache winner on disk keyed by GPU name
};

}  // namespace nufftmp
