// Choosing the method, bin sizes and points per block from the device's properties, the
// dimension, kernel width and precision. Pure host logic (no kernels): unit-testable.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "common/plan_config.hpp"
#include "cuda/device_views.hpp"
#include "cuda/kernel_variant.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp::detail {

struct DeviceProps {
  std::string name;
  int sm_count = 0;
  std::size_t smem_optin = 0;   // opt-in shared memory per block
  std::size_t smem_per_sm = 0;
  std::size_t l2_bytes = 0;
  int cc_major = 0;
};

// Cached per device for the process. with_name = false skips the name (empty), which costs a
// cudaGetDeviceProperties call the first time.
DeviceProps query_device(int device, bool with_name = true);

struct MethodChoice {
  Method method = Method::GMSort;
  BinView bins{};
  int maxsub = 0;      // SM / Output subproblem size (0 = no subproblems)
  int np = 0;          // Output: points staged per round
  int threads = 256;
  // The kernel of a tiled method that has several (launch.hpp); Auto for the others.
  KernelVariant variant = KernelVariant::Auto;
  // Type 2 SM: set_points orders each subproblem's points by their first stencil cell
  // (cell_order.hpp), so that a warp's lanes read the same or neighbouring tile cells.
  bool cell_order = false;
  // A set_points refinement whose bins differ from the plan's: the points are sorted again
  // into them (refine_alternative).
  bool resort = false;
  std::size_t shared_bytes = 0;
  std::string note;    // why a fallback happened (empty otherwise)
};

// Resolves Options::method (Auto, or a method the type does not have) and the launch
// parameters; honours Options::binsize / maxsubprobsize / points_per_block; falls back to
// GM-sort when a tile cannot fit in shared memory.
template <typename T>
MethodChoice choose_method(const PlanConfig& cfg, const DeviceProps& props);
// The same with `o` in place of cfg.opts (autotune asks for variants without copying the
// plan's deconvolution tables).
template <typename T>
MethodChoice choose_method(const PlanConfig& cfg, const DeviceProps& props, const Options& o);

// The method refined at set_points (PERFORMANCE.md, "The method at set_points"). The plan's
// choice assumes nothing about the points; the sort then says how they fill the bins, and
// where the measurements favour another kernel for crowded bins, set_points switches to it.
// Mostly between configurations that sort the points the same way (bins, maxsub), so the
// points need no second sort; the one that does not (resort) is paid only on crowded points.
struct BinStats {
  std::int64_t points = 0;     // M
  std::int64_t bins = 0;       // bins of the layout
  std::int64_t nonempty = 0;   // bins that hold points
  std::int64_t max_count = 0;  // points in the fullest bin
  std::int64_t crowded = 0;    // points in crowded bins (count >= crowded_bin_count)
};

// The alternative set_points may switch to, if this plan has one: the user left the method to
// the library (Method::Auto, no NUFFTMP_CUDA_VARIANT), NUFFTMP_CUDA_REFINE is not "0", no
// autotune. Today: 1D float type 1, SM -> the output-driven tile (the same sort); 3D type 2,
// SM with the dealt gather -> the thread gather on points ordered by cell within each
// subproblem, sorted again into kCrowdedType2Bins3d* bins unless the user or
// NUFFTMP_CUDA_BINSIZE set the bins (none with NUFFTMP_CUDA_CELL_ORDER=off); 2D type 2 float,
// the dealt gather in the default 32^2 bins -> the same gather in kCrowdedType2Bin2d^2 bins
// (resort: a second sort, unless the user or NUFFTMP_CUDA_BINSIZE set the bins).
template <typename T>
std::optional<MethodChoice> refine_alternative(const PlanConfig& cfg, const DeviceProps& props,
                                               const MethodChoice& plan);
// A bin is crowded from this many points: kCrowdFactor times the larger of its cells and the
// mean count M / bins (so uniform points, however dense, fill no bin to it).
std::int64_t crowded_bin_count(const BinView& bins, std::int64_t M);
// The rule: take the alternative when at least kCrowdedShare of the points lie in crowded bins.
bool prefer_crowded_alternative(const BinStats& s);
constexpr std::int64_t kCrowdFactor = 8;
// The bin side of 2D float type 2's crowded alternative, and the bins of 3D type 2's.
constexpr int kCrowdedType2Bin2d = 16;
constexpr int kCrowdedType2Bins3dFloat[3] = {8, 8, 4};
constexpr int kCrowdedType2Bins3dDouble[3] = {4, 4, 8};
constexpr double kCrowdedShare = 0.3;
// 3D bins (heuristics.cpp): type 2's dealt gather in 16 x 8 x 8 bins where that tile is at
// most this many bytes; float output-driven tiles from width kFineFixedTileW in 4 x 4 x 8 bins
// and subproblems of at most kFineFixedTileSub points (accuracy of the 32-bit fixed point).
constexpr std::size_t kWideTile3dBytes = 100 * 1024;
constexpr int kFineFixedTileW = 7;
constexpr int kFineFixedTileSub = 256;

// One line for debug output: method, variant, bins, maxsub, np, shared memory.
std::string describe_choice(const MethodChoice& ch, int dim);

// "tile", "rows", "sweep", "thread", "group", "dealt", "fixed" ("auto" for Auto).
const char* variant_name(KernelVariant v);
// Whether a variant is a kernel of (type, method, dim, precision) at all (bins aside).
bool variant_fits(KernelVariant v, int type, Method m, int dim, std::size_t tsize);

// The bin layout for given sizes (sizes clamped to the fine grid).
BinView make_bins(int dim, const std::array<std::int64_t, 3>& nf, const int size[3]);

}  // namespace nufftmp::detail
