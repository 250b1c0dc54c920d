#include "cuda/heuristics.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "cuda/cell_order.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch.hpp"
#include "cuda/spread_output_rows.hpp"
#include "cuda/sweep_layout.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::detail {

namespace {

// Per device, once per process: cudaGetDeviceProperties fills every field of cudaDeviceProp
// (milliseconds); the heuristics read five attributes, the name is only for autotune keys and
// messages.
struct PropsCache {
  std::mutex m;
  std::map<int, DeviceProps> numbers;
  std::map<int, std::string> names;
};
PropsCache& props_cache() {
  static PropsCache c;
  return c;
}

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  NUFFTMP_CUDA_TRY(cudaDeviceGetAttribute(&v, a, device));
  return v;
}

}  // namespace

DeviceProps query_device(int device, bool with_name) {
  PropsCache& c = props_cache();
  std::lock_guard<std::mutex> lock(c.m);
  auto it = c.numbers.find(device);
  if (it == c.numbers.end()) {
    DeviceProps d;
    d.sm_count = attribute(cudaDevAttrMultiProcessorCount, device);
    d.smem_optin =
        static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    d.smem_per_sm =
        static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    d.l2_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize, device));
    d.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, device);
    it = c.numbers.emplace(device, d).first;
  }
  DeviceProps d = it->second;
  if (with_name) {
    auto n = c.names.find(device);
    if (n == c.names.end()) {
      cudaDeviceProp p{};
      NUFFTMP_CUDA_TRY(cudaGetDeviceProperties(&p, device));
      n = c.names.emplace(device, std::string(p.name)).first;
    }
    d.name = n->second;
  }
  return d;
}

BinView make_bins(int dim, const std::array<std::int64_t, 3>& nf, const int size[3]) {
  BinView b{};
  b.total = 1;
  for (int d = 0; d < 3; ++d) {
    if (d < dim) {
      b.size[d] = static_cast<std::int32_t>(std::min<std::int64_t>(std::max(size[d], 1), nf[d]));
      b.count[d] = static_cast<std::int32_t>((nf[d] + b.size[d] - 1) / b.size[d]);
      b.per_size[d] = IntDivider::make(b.size[d]);
    } else {
      b.size[d] = 1;
      b.count[d] = 1;
    }
    b.total *= b.count[d];
  }
  return b;
}

namespace {

// Tuning knobs for measurements (scripts/device_gpu.sh sweeps them): NUFFTMP_CUDA_BINSIZE=
// "8,8,8", NUFFTMP_CUDA_MAXSUB=1024, NUFFTMP_CUDA_NP=64, NUFFTMP_CUDA_THREADS=256. Options
// fields take precedence.
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return (v && *v) ? std::atoi(v) : fallback;
}
void env_bins(int dim, int* bs) {
  const char* v = std::getenv("NUFFTMP_CUDA_BINSIZE");
  if (!v || !*v) return;
  int b[3] = {0, 0, 0};
  if (std::sscanf(v, "%d,%d,%d", &b[0], &b[1], &b[2]) >= 1)
    for (int d = 0; d < dim; ++d)
      if (b[d] > 0) bs[d] = b[d];
}

// Variants a (type, method, dim, precision) has, and the one it runs unless told otherwise
// (the measured winners: PERFORMANCE.md).
// Measured on the H200 (docs/performance.md section 11, scripts/device_execute.sh, commit
// 1ffe231): the dealt gather beat the per-thread and lane-group ones on every 2D/3D type 2 case
// (P2 2.33 ms against 3.39, S32d-12 15.2 against 23.8, S22d-12 0.94 against gm-sort's 1.85)
// and lost in 1D (P8 1.96 against 1.36 for gm; Q8 0.96 against 0.86 for the thread gather).
// Double type 1 in 2D: the 64-bit fixed-point tile (two native 32-bit shared atomics per value)
// beat the double tile and the register rows at every width measured (commit 866ef7e, RUNSET=
// refine: S21d-6, w 7, 0.878 ms against the tile's 1.433 and the rows' 1.585; S21d-12, w 13,
// 1.894 against the rows' 2.367 and the tile's 3.605). In 3D the register rows stay (P5 2.71 ms
// against the fixed tile's 5.31); 1D double keeps the double tile (not measured).
KernelVariant default_variant(int type, Method m, int dim, std::size_t tsize, int /*w*/) {
  if (type == 1 && m == Method::Output) {
    if (tsize == 8 && dim == 3) return KernelVariant::Rows;
    if (tsize == 8 && dim == 2) return KernelVariant::Fixed;
    return KernelVariant::Tile;
  }
  if (type == 2 && m == Method::SM) {
    if (dim >= 2) return KernelVariant::Dealt;
    return tsize == 8 ? KernelVariant::Group : KernelVariant::Thread;
  }
  return KernelVariant::Auto;
}

// NUFFTMP_CUDA_VARIANT=name[,name...]: the first name that is a kernel of this plan's method
// (so one setting can name a type 1 and a type 2 variant); unknown names are ignored.
KernelVariant requested_variant(int type, Method m, int dim, std::size_t tsize) {
  const char* v = std::getenv("NUFFTMP_CUDA_VARIANT");
  if (!v || !*v) return KernelVariant::Auto;
  const std::string list(v);
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string name = list.substr(at, end - at);
    for (KernelVariant k : {KernelVariant::Tile, KernelVariant::Rows, KernelVariant::Sweep,
                            KernelVariant::Thread, KernelVariant::Group, KernelVariant::Dealt,
                            KernelVariant::Fixed})
      if (name == variant_name(k) && variant_fits(k, type, m, dim, tsize)) return k;
    at = end + 1;
  }
  return KernelVariant::Auto;
}

// The float output-driven tile at tolerances near 1e-6 (3D, from kFineFixedTileW): finer bins
// and subproblems for the accuracy of its 32-bit fixed point (default_bins, choose_method).
bool fine_fixed_tile(KernelVariant v, int dim, std::size_t tsize, int w) {
  return v == KernelVariant::Tile && dim == 3 && tsize == 4 && w >= kFineFixedTileW;
}

// Starting bin sizes. GM-sort only sorts with them (long x-runs keep neighbouring threads on
// neighbouring cache lines); the tiled methods aim at tiles of a few tens of KB so several
// blocks share an SM (filling shared memory costs occupancy: benchmarks.md).
void default_bins(Method m, KernelVariant v, int type, int dim, std::size_t tsize, int w,
                  int* bs) {
  bs[0] = bs[1] = bs[2] = 1;
  if (m == Method::GM || m == Method::GMSort) {
    if (dim == 1) bs[0] = 1024;
    if (dim == 2) bs[0] = bs[1] = 32;
    if (dim == 3) { bs[0] = bs[1] = 16; bs[2] = 2; }
    return;
  }
  if (v == KernelVariant::Sweep) {
    // Eight 32-column strips: the bin is the tile row less its halo. Type 1 adds each tile cell
    // to the fine grid once per subproblem, so its bins are tall: 14 rows, ~3500 points at
    // density 1, one subproblem of kSweepDefaultSub1 (4096) even for Poisson counts. Type 2
    // only reads the grid, and keeps two partial sums per point (2 x maxsub complex values) in
    // shared memory: 3 rows, ~750 points, one subproblem of kSweepDefaultSub2 (1024).
    bs[0] = kSweepMaxStrips * kSweepStripCols - 2 * ((w + 1) / 2);
    if (dim == 2) bs[1] = type == 1 ? 14 : 3;
    return;
  }
  if (dim == 1) bs[0] = 1024;
  if (dim == 2) bs[0] = bs[1] = 32;
  // The 64-bit fixed-point tile (2D double type 1) spreads faster into 16^2 bins: H200, commit
  // 95c2bc1, NUFFTMP_CUDA_BINSIZE sweep, execute ms: S21d-6 (w 7) 16^2 0.789, 32^2 0.882, 64x32
  // 0.970, 32x64 0.992, 64^2 1.288; S21d-12 (w 13) 16^2 1.770, 32^2 1.885, 64x32 2.365 (its
  // tile is 16 B a cell: smaller tiles let more blocks share an SM). set_points of the 4x more
  // bins: 0.52 -> 0.56 ms (S21d-6).
  if (dim == 2 && v == KernelVariant::Fixed) bs[0] = bs[1] = 16;
  if (dim == 2 && v == KernelVariant::Rows) {  // a thread per tile row: 256 rows, 4 + halo wide
    bs[0] = kRowsBinX;
    bs[1] = 256 - 2 * ((w + 1) / 2);
  }
  // Double output-driven spreading in 3D runs the register-row kernel, built for 4-wide bins
  // (spread_output_rows.cu). P5 on the H200: 4x4x8 bins 2.67 ms, 4^3 3.13, 4x8x8 3.90 (its 324
  // rows need two passes of a 256-thread block). SM and the SM interpolator keep 8^3 (P5 SM:
  // 80 ms with 4^3, 21 ms with 8^3; P6 SM with lane groups: 8^3 2.47 ms, 8x8x4 2.56, 4^3 3.12).
  if (dim == 3) {
    bs[0] = bs[1] = bs[2] = 8;
    if (v == KernelVariant::Rows) bs[0] = bs[1] = 4;
    // Type 2's dealt gather: 16 x 8 x 8 bins where their tile is at most kWideTile3dBytes.
    // H200, de431c1/460d2eb, scripts/device_method_sweep.sh, execute ms 8^3 -> 16x8x8: S32f-6
    // (w 7) 1.768 -> 1.272, S32f-3 (w 4) 0.587 -> 0.553, P2 (w 6) 2.066 -> 2.043, S32d-6
    // (double, w 7, 83 KB) 2.484 -> 2.313, and set_points of half the bins 2-7% less; P6
    // (double, w 10, 135 KB) 1.792 -> 2.033, S32d-12 (w 13) equal. Crowded points (Q2: 1.40
    // ms in 16x8x8 against 1.21 in 8^3) are sorted again into finer bins (refine_alternative).
    BinView wide{};
    wide.size[0] = 16;
    wide.size[1] = wide.size[2] = 8;
    const std::size_t wide_tile = 2 * tsize * static_cast<std::size_t>(make_tile(3, w, wide).cells);
    if (type == 2 && v == KernelVariant::Dealt && wide_tile <= kWideTile3dBytes) bs[0] = 16;
    // Float output-driven tiles from w 7 (tolerances near 1e-6): 4 x 4 x 8 bins. Faster and
    // more accurate: the 32-bit fixed point rounds each add to 2^-30 of its subproblem's
    // sum |c|, so fewer points a subproblem round finer. H200, 460d2eb, S31f-6 (w 7) execute
    // 2.999 -> 2.683 ms, error 1.92e-6 -> 9.2e-7 (set_points 0.50 -> 0.61 ms: 4x the bins);
    // at w 4-6 8^3 stays (S31f-3 0.785 against 0.898, P1 4.14 against 4.34).
    if (fine_fixed_tile(v, dim, tsize, w)) {
      bs[0] = bs[1] = 4;
      bs[2] = 8;
    }
  }
}

template <typename T>
std::size_t tile_bytes(int type, Method m, KernelVariant v, int dim, int w, const BinView& b,
                       int np, int maxsub, int threads) {
  switch (v) {
    case KernelVariant::Rows: return spread_rows_shared_bytes(dim, w, b, np);
    case KernelVariant::Sweep: return sweep_launch(type, dim, w, sizeof(T), b, maxsub).shared_bytes;
    case KernelVariant::Dealt:
      return deal_layout(dim, sizeof(T), make_tile(dim, w, b), threads).total;
    default: break;
  }
  if (m == Method::Output) return spread_output_shared_bytes<T>(dim, w, b, np);
  return sm_tile_shared_bytes<T>(dim, w, b);
}

// Whether the user (Options::binsize) or NUFFTMP_CUDA_BINSIZE set a bin side: then the
// crowded alternatives keep the plan's bins.
bool bins_were_set(const PlanConfig& cfg) {
  int env[3] = {0, 0, 0};
  env_bins(cfg.dim, env);  // read as choose_method reads it
  for (int d = 0; d < cfg.dim; ++d)
    if (cfg.opts.binsize[d] > 0 || env[d] > 0) return true;
  return false;
}

}  // namespace

template <typename T>
MethodChoice choose_method(const PlanConfig& cfg, const DeviceProps& props) {
  return choose_method<T>(cfg, props, cfg.opts);
}

template <typename T>
MethodChoice choose_method(const PlanConfig& cfg, const DeviceProps& props, const Options& o) {
  const int dim = cfg.dim, w = cfg.kernel.w;
  MethodChoice ch;
  Method m = o.method;
  // Auto, and Output for type 2, take the fastest method measured on the H200 for the
  // public suite (PERFORMANCE.md): type 1: output-driven in 2D/3D, SM in 1D; type 2: GM in
  // 1D (coalesced writes of c beat sorted reads), SM in 2D/3D with the dealt gather (double
  // 2D too, where GM-sort had beaten the older gathers: S22d-6 0.52 ms against 0.66).
  if (m == Method::Auto || (cfg.type == 2 && m == Method::Output)) {
    if (!o.sort) m = Method::GM;
    else if (cfg.type == 1) m = dim == 1 ? Method::SM : Method::Output;
    else m = dim == 1 ? Method::GM : Method::SM;
  }
  ch.method = m;
  const KernelVariant wanted = requested_variant(cfg.type, m, dim, sizeof(T));
  KernelVariant v = wanted != KernelVariant::Auto ? wanted
                                                  : default_variant(cfg.type, m, dim, sizeof(T), w);
  int bs[3];
  auto bins_for = [&](KernelVariant var) {
    default_bins(m, var, cfg.type, dim, sizeof(T), w, bs);
    env_bins(dim, bs);
    for (int d = 0; d < dim; ++d)
      if (o.binsize[d] > 0) bs[d] = o.binsize[d];
    return make_bins(dim, cfg.nf, bs);
  };
  ch.bins = bins_for(v);
  if (m == Method::GM || m == Method::GMSort) return ch;

  const int sweep_sub = cfg.type == 1 ? (dim == 1 ? kSweepMaxSub : kSweepDefaultSub1)
                                      : kSweepDefaultSub2;
  // 2D register rows: bins of ~1000 points at density 1 in one subproblem (each adds its whole
  // tile to the fine grid); the points are staged np at a time, so size costs no memory.
  // The type 2 thread-per-point gathers load their bin's tile once per subproblem: crowded
  // bins cut into subproblems of 4096 pay it a quarter as often as of 1024 (H200, Q4 = P4 on
  // clustered points: interp 0.450 -> 0.414 ms; P4, Q2 within 1%; 16384: 0.437).
  // The float fixed-point tile in 3D from w 7 cuts crowded bins into subproblems of
  // kFineFixedTileSub points: the rounding of each add is 2^-30 of the subproblem's sum |c|
  // (tile_common.cuh). H200, 460d2eb, 3D type 1 float clustered (24 x 20 x 28, M 107520,
  // sigma 2, 1e-6, three seeds): error 2.1-2.6e-6 with 1024, 0.98-1.03e-6 with 256 (the CPU
  // engine 0.88-0.95e-6); with 8^3 bins Q1 (w 6) took 4-6% longer at 256.
  auto maxsub_for = [&](KernelVariant var) {
    const bool gather = var == KernelVariant::Dealt || var == KernelVariant::Thread;
    const int fallback = var == KernelVariant::Sweep                              ? sweep_sub
                         : ((var == KernelVariant::Rows && dim == 2) || gather) ? 4096
                         : fine_fixed_tile(var, dim, sizeof(T), w)               ? kFineFixedTileSub
                                                                                  : 1024;
    return o.maxsubprobsize > 0 ? o.maxsubprobsize : env_int("NUFFTMP_CUDA_MAXSUB", fallback);
  };
  // Variants with conditions on the bins: the register rows need 4-wide bins, the sweep at most
  // eight strips and 16-bit sort indices. Otherwise the method's other kernel runs.
  if (v == KernelVariant::Rows && ch.bins.size[0] != kRowsBinX) v = KernelVariant::Tile;
  if (v == KernelVariant::Sweep && !sweep_applies(dim, w, ch.bins, maxsub_for(v))) {
    v = cfg.type == 1 ? KernelVariant::Tile : default_variant(2, m, dim, sizeof(T), w);
    ch.bins = bins_for(v);
  }
  ch.variant = v;
  ch.maxsub = maxsub_for(v);
  ch.np = o.points_per_block > 0
              ? o.points_per_block
              : env_int("NUFFTMP_CUDA_NP", dim == 3 ? (sizeof(T) == 8 ? 32 : 64)
                                                    : dim == 2 ? 128 : 256);
  // Kernels are built for <= 256 threads, and whole warps: the lane-group gather shuffles
  // with a full-warp mask, so a partial last warp would be undefined.
  const int threads = std::min(256, std::max(32, env_int("NUFFTMP_CUDA_THREADS", 256)));
  ch.threads = (threads + 31) / 32 * 32;
  // Shrink the largest bin side until the tile fits the opt-in shared memory.
  for (;;) {
    if (v == KernelVariant::Sweep)
      ch.threads = sweep_launch(cfg.type, dim, w, sizeof(T), ch.bins, ch.maxsub).threads;
    ch.shared_bytes =
        tile_bytes<T>(cfg.type, m, v, dim, w, ch.bins, ch.np, ch.maxsub, ch.threads);
    if (ch.shared_bytes <= props.smem_optin) return ch;
    int big = 0;
    for (int d = 1; d < dim; ++d)
      if (ch.bins.size[d] > ch.bins.size[big]) big = d;
    if (ch.bins.size[big] <= 2) break;
    bs[0] = ch.bins.size[0];
    bs[1] = ch.bins.size[1];
    bs[2] = ch.bins.size[2];
    bs[big] = bs[big] / 2;
    ch.bins = make_bins(dim, cfg.nf, bs);
    // Halving x breaks the register rows' 4-wide bins: the shared tile then.
    if (v == KernelVariant::Rows && ch.bins.size[0] != kRowsBinX)
      v = ch.variant = KernelVariant::Tile;
  }
  MethodChoice fb;
  fb.method = Method::GMSort;
  default_bins(Method::GMSort, KernelVariant::Auto, cfg.type, dim, sizeof(T), w, bs);
  fb.bins = make_bins(dim, cfg.nf, bs);
  fb.note = std::string("method ") + (m == Method::SM ? "sm" : "output") + " needs " +
            std::to_string(ch.shared_bytes) + " B of shared memory per block (device allows " +
            std::to_string(props.smem_optin) + " B); using gm-sort";
  return fb;
}

template <typename T>
std::optional<MethodChoice> refine_alternative(const PlanConfig& cfg, const DeviceProps& props,
                                               const MethodChoice& plan) {
  const char* env = std::getenv("NUFFTMP_CUDA_REFINE");
  if (env && std::string(env) == "0") return std::nullopt;  // the plan's choice only
  if (cfg.opts.method != Method::Auto || cfg.opts.autotune || !cfg.opts.sort) return std::nullopt;
  if (requested_variant(cfg.type, plan.method, cfg.dim, sizeof(T)) != KernelVariant::Auto)
    return std::nullopt;
  // 3D type 2 with the dealt gather: on crowded bins the thread gather over points in cell
  // order (cell_order.hpp) - a warp's lanes then read the same cells (broadcasts), with none
  // of the dealing's staging. Same bins and subproblems: the order is a pass over them. H200,
  // interp GPU ms, dealt -> thread in cell order: Q2 1.653 -> 0.933, Q6 (double) 1.635 ->
  // 1.113; set_points + 0.29 / 0.15 ms. Not in 2D: Q4 0.411 -> 0.457 (the thread gather there
  // waits on its global loads, ncu: issue slots 49% busy against the dealt one's 75%).
  // The crowded points are sorted again into finer bins (resort), unless the user (or
  // NUFFTMP_CUDA_BINSIZE) set the bins: H200, de431c1, execute ms of the cell-order gather by
  // bins: Q2 (float, w 6) 8x8x4 1.148, 8^3 1.215, 4x4x8 1.250, 16x8x8 1.402; Q6 (double, w 10)
  // 4x4x8 0.955, 8x8x4 1.086, 8^3 1.183 (kCrowdedType2Bins3d).
  if (cfg.type == 2 && cfg.dim == 3 && plan.method == Method::SM &&
      plan.variant == KernelVariant::Dealt) {
    if (cell_order_from_env() == CellOrderMode::Off) return std::nullopt;
    MethodChoice alt = plan;
    if (!bins_were_set(cfg)) {
      Options o = cfg.opts;
      o.method = Method::SM;
      const int* fine = sizeof(T) == 4 ? kCrowdedType2Bins3dFloat : kCrowdedType2Bins3dDouble;
      for (int d = 0; d < 3; ++d) o.binsize[d] = fine[d];
      const MethodChoice f = choose_method<T>(cfg, props, o);
      bool same = f.method == Method::SM && f.maxsub == plan.maxsub;
      for (int d = 0; d < 3; ++d) same = same && f.bins.size[d] == plan.bins.size[d];
      if (f.method == Method::SM && !same) {
        alt = f;
        alt.resort = true;
      }
    }
    if (!cell_order_fits(cfg.dim, cfg.kernel.w, alt.bins, alt.maxsub)) return std::nullopt;
    alt.variant = KernelVariant::Thread;
    alt.cell_order = true;
    alt.shared_bytes = sm_tile_shared_bytes<T>(cfg.dim, cfg.kernel.w, alt.bins);
    return alt;
  }
  // 2D type 2 with the dealt gather: points crowded into a few bins are cut into many
  // subproblems, each loading its bin's tile; 16^2 bins make the tile (16 + w)^2 cells instead
  // of (32 + w)^2. H200, e9cc2d7, NUFFTMP_CUDA_BINSIZE=16,16 (docs/performance.md section 18):
  // Q4 execute 0.536 -> 0.527 ms and its sort 0.90 -> 0.64 ms, but uniform P4's sort
  // 0.99 -> 1.47 ms (four times the bins to count) at an equal execute: a second sort into the
  // finer bins, paid only where the first found the points crowded. Not where the user (or
  // NUFFTMP_CUDA_BINSIZE) set the bins, nor where the plan's bins are already that fine.
  if (cfg.type == 2 && cfg.dim == 2 && plan.method == Method::SM &&
      plan.variant == KernelVariant::Dealt) {
    if (sizeof(T) != 4) return std::nullopt;  // double: not measured faster (PERFORMANCE.md)
    if (bins_were_set(cfg)) return std::nullopt;
    Options o = cfg.opts;
    o.method = Method::SM;
    o.binsize[0] = o.binsize[1] = kCrowdedType2Bin2d;
    MethodChoice alt = choose_method<T>(cfg, props, o);
    const bool finer = alt.method == Method::SM && alt.variant == KernelVariant::Dealt &&
                       std::int64_t(alt.bins.size[0]) * alt.bins.size[1] <
                           std::int64_t(plan.bins.size[0]) * plan.bins.size[1];
    if (!finer) return std::nullopt;
    alt.resort = true;
    return alt;
  }
  // 1D float type 1: SM spreads uniform points fastest, the output-driven tile (32-bit fixed
  // point: native atomics, where SM's float atomics are CAS loops that retry when many points
  // of a subproblem hit the same cells) crowded ones. H200, 1ffe231: P7 SM 1.31 ms (output
  // tile 1.60 at a92e5fb), Q7 SM 1.96 ms, output tile 1.03. Double has no 1D measurement.
  if (!(cfg.type == 1 && cfg.dim == 1 && sizeof(T) == 4 && plan.method == Method::SM))
    return std::nullopt;
  Options o = cfg.opts;
  o.method = Method::Output;
  MethodChoice alt = choose_method<T>(cfg, props, o);
  const bool same_sort = alt.method == Method::Output && alt.maxsub == plan.maxsub &&
                         alt.bins.size[0] == plan.bins.size[0] &&
                         alt.bins.size[1] == plan.bins.size[1] &&
                         alt.bins.size[2] == plan.bins.size[2];
  if (!same_sort) return std::nullopt;
  return alt;
}

std::int64_t crowded_bin_count(const BinView& bins, std::int64_t M) {
  const std::int64_t cells = std::int64_t(bins.size[0]) * bins.size[1] * bins.size[2];
  const std::int64_t mean = bins.total > 0 ? (M + bins.total - 1) / bins.total : M;
  return kCrowdFactor * std::max<std::int64_t>({cells, mean, 1});
}

bool prefer_crowded_alternative(const BinStats& s) {
  return s.points > 0 && double(s.crowded) >= kCrowdedShare * double(s.points);
}

const char* variant_name(KernelVariant v) {
  switch (v) {
    case KernelVariant::Tile: return "tile";
    case KernelVariant::Rows: return "rows";
    case KernelVariant::Sweep: return "sweep";
    case KernelVariant::Thread: return "thread";
    case KernelVariant::Group: return "group";
    case KernelVariant::Dealt: return "dealt";
    case KernelVariant::Fixed: return "fixed";
    default: return "auto";
  }
}

bool variant_fits(KernelVariant v, int type, Method m, int dim, std::size_t tsize) {
  switch (v) {
    case KernelVariant::Tile: return type == 1 && m == Method::Output;
    case KernelVariant::Rows: return type == 1 && m == Method::Output && dim >= 2 && tsize == 8;
    case KernelVariant::Fixed: return type == 1 && m == Method::Output && tsize == 8;
    case KernelVariant::Sweep:
      return dim <= 2 && ((type == 1 && m == Method::Output) || (type == 2 && m == Method::SM));
    case KernelVariant::Thread:
    case KernelVariant::Group:
    case KernelVariant::Dealt: return type == 2 && m == Method::SM;
    default: return false;
  }
}

std::string describe_choice(const MethodChoice& ch, int dim) {
  std::string s = std::string("method ") + method_name(ch.method);
  if (ch.variant != KernelVariant::Auto) s += std::string(" (") + variant_name(ch.variant) + ")";
  if (ch.cell_order) s += ", points in cell order";
  s += ", bins";
  for (int d = 0; d < dim; ++d) s += (d ? "x" : " ") + std::to_string(ch.bins.size[d]);
  s += ", maxsub " + std::to_string(ch.maxsub) + ", np " + std::to_string(ch.np) + ", shared " +
       std::to_string(ch.shared_bytes) + " B";
  return s;
}

template MethodChoice choose_method<float>(const PlanConfig&, const DeviceProps&);
template MethodChoice choose_method<double>(const PlanConfig&, const DeviceProps&);
template MethodChoice choose_method<float>(const PlanConfig&, const DeviceProps&, const Options&);
template MethodChoice choose_method<double>(const PlanConfig&, const DeviceProps&, const Options&);
template std::optional<MethodChoice> refine_alternative<float>(const PlanConfig&,
                                                               const DeviceProps&,
                                                               const MethodChoice&);
template std::optional<MethodChoice> refine_alternative<double>(const PlanConfig&,
                                                                const DeviceProps&,
                                                                const MethodChoice&);

}  // namespace nufftmp::detail
