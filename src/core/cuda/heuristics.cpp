#include "cuda/heuristics.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "cuda/cuda_check.hpp"
#include "cuda/launch.hpp"
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

// Starting bin sizes. GM-sort only sorts with them (long x-runs keep neighbouring threads on
// neighbouring cache lines); the tiled methods aim at tiles of a few tens of KB so several
// blocks share an SM (filling shared memory costs occupancy: benchmarks.md).
void default_bins(Method m, int dim, int w, std::size_t tsize, int* bs) {
  bs[0] = bs[1] = bs[2] = 1;
  if (m == Method::GM || m == Method::GMSort) {
    if (dim == 1) bs[0] = 1024;
    if (dim == 2) bs[0] = bs[1] = 32;
    if (dim == 3) { bs[0] = bs[1] = 16; bs[2] = 2; }
    return;
  }
  if (dim == 1) bs[0] = 1024;
  if (dim == 2) bs[0] = bs[1] = 32;
  // Double output-driven spreading in 3D runs the register-row kernel, built for 4-wide bins
  // (spread_output_rows.cu). P5 on the H200: 4x4x8 bins 2.67 ms, 4^3 3.13, 4x8x8 3.90 (its 324
  // rows need two passes of a 256-thread block). SM and the SM interpolator keep 8^3 (P5 SM:
  // 80 ms with 4^3, 21 ms with 8^3; P6 SM with lane groups: 8^3 2.47 ms, 8x8x4 2.56, 4^3 3.12).
  (void)w;
  if (dim == 3) {
    bs[0] = bs[1] = bs[2] = 8;
    if (m == Method::Output && tsize == 8) bs[0] = bs[1] = 4;
  }
}

template <typename T>
std::size_t tile_bytes(Method m, int dim, int w, const BinView& b, int np) {
  if (m == Method::Output) return spread_output_shared_bytes<T>(dim, w, b, np);
  return sm_tile_shared_bytes<T>(dim, w, b);
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
  // 1D (coalesced writes of c beat sorted reads), SM in 2D/3D, except GM-sort for double in
  // 2D (double 1024^2, M = 4.2e6, tol 1e-9: GM-sort 1.01 ms, SM 1.83; in 3D SM's lane-group
  // gather wins: P6 2.47 ms against 3.14).
  if (m == Method::Auto || (cfg.type == 2 && m == Method::Output)) {
    if (!o.sort) m = Method::GM;
    else if (cfg.type == 1) m = dim == 1 ? Method::SM : Method::Output;
    else if (dim == 1) m = Method::GM;
    else m = (sizeof(T) == 8 && dim == 2) ? Method::GMSort : Method::SM;
  }
  ch.method = m;
  int bs[3];
  default_bins(m, dim, w, sizeof(T), bs);
  env_bins(dim, bs);
  for (int d = 0; d < dim; ++d)
    if (o.binsize[d] > 0) bs[d] = o.binsize[d];
  ch.bins = make_bins(dim, cfg.nf, bs);
  if (m == Method::GM || m == Method::GMSort) return ch;

  ch.maxsub = o.maxsubprobsize > 0 ? o.maxsubprobsize : env_int("NUFFTMP_CUDA_MAXSUB", 1024);
  ch.np = o.points_per_block > 0
              ? o.points_per_block
              : env_int("NUFFTMP_CUDA_NP", dim == 3 ? (sizeof(T) == 8 ? 32 : 64)
                                                    : dim == 2 ? 128 : 256);
  // Kernels are built for <= 256 threads, and whole warps: the lane-group gather shuffles
  // with a full-warp mask, so a partial last warp would be undefined.
  const int threads = std::min(256, std::max(32, env_int("NUFFTMP_CUDA_THREADS", 256)));
  ch.threads = (threads + 31) / 32 * 32;
  const Method tiled = (cfg.type == 2) ? Method::SM : m;
  // Shrink the largest bin side until the tile fits the opt-in shared memory.
  for (;;) {
    ch.shared_bytes = tile_bytes<T>(tiled, dim, w, ch.bins, ch.np);
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
  }
  MethodChoice fb;
  fb.method = Method::GMSort;
  default_bins(Method::GMSort, dim, w, sizeof(T), bs);
  fb.bins = make_bins(dim, cfg.nf, bs);
  fb.note = std::string("method ") + (m == Method::SM ? "sm" : "output") + " needs " +
            std::to_string(ch.shared_bytes) + " B of shared memory per block (device allows " +
            std::to_string(props.smem_optin) + " B); using gm-sort";
  return fb;
}

std::string describe_choice(const MethodChoice& ch, int dim) {
  std::string s = std::string("method ") + method_name(ch.method) + ", bins";
  for (int d = 0; d < dim; ++d) s += (d ? "x" : " ") + std::to_string(ch.bins.size[d]);
  s += ", maxsub " + std::to_string(ch.maxsub) + ", np " + std::to_string(ch.np) + ", shared " +
       std::to_string(ch.shared_bytes) + " B";
  return s;
}

template MethodChoice choose_method<float>(const PlanConfig&, const DeviceProps&);
template MethodChoice choose_method<double>(const PlanConfig&, const DeviceProps&);
template MethodChoice choose_method<float>(const PlanConfig&, const DeviceProps&, const Options&);
template MethodChoice choose_method<double>(const PlanConfig&, const DeviceProps&, const Options&);

}  // namespace nufftmp::detail
