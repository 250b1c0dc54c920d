#include "cpu/sorted_points.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <string>
#include <type_traits>

#include "common/checks.hpp"
#include "common/stopwatch.hpp"
#include "cpu/bin_pass.hpp"
#include "cpu/isa.hpp"
#include "cpu/kernel_eval.hpp"
#include "cpu/point_reader.hpp"
#include "cpu/threads.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail::cpu {

namespace {

// Bin shapes (log2 of the cells per axis) before make_bin_layout's cap, and the 3D shape of
// BinShape::Small. Measured on the GPU machine's 16-core Xeon (2026-12-02, 1e6 points, 64^3
// and 512^2 modes, bins swept; docs/data/cpu_bins_h200host_2026-12-02.txt): the streamed place
// is fastest with few bins (its buffers, 8 D + 9 words a bin and thread, then stay in L2:
// 3D 8192 bins 3.6 ms, 2048 1.7-2.1, 1024 1.5-1.7 at 16 threads), while the execute wants
// small ones, most of all the 3D double spreader (type 1, 1e-9: 24 ms at 16 x 4 x 4 cells,
// 30 at 16 x 8 x 8, 33 at 32 x 8 x 8). Best set_points + execute: 2D 64 x 16 (1.8 -> 1.2 ms
// set_points, execute equal or faster), 3D 16 x 8 x 8, 3D double type 1 16 x 4 x 4.
constexpr int kLogBinSize[3][3] = {{8, 0, 0}, {6, 4, 0}, {4, 3, 3}};
constexpr int kLogBinSizeSmall3D[3] = {4, 2, 2};
// Points per subproblem: enough to amortize zeroing and adding back its box, few enough to
// keep the box in cache and give every thread several subproblems.
constexpr std::int64_t kMaxSubproblemPoints = 10000;

// Times of the phases, printed on one line at debug >= 2.
class PhaseTimer {
 public:
  explicit PhaseTimer(bool on) : on_(on) {}
  void lap(const char* name) {
    if (!on_) return;
    n_ += std::snprintf(buf_ + n_, sizeof buf_ - n_, " %s %.2f", name, ms_since(t_));
    if (n_ > static_cast<int>(sizeof buf_)) n_ = sizeof buf_;
    t_ = Clock::now();
  }
  void print(std::int64_t M) const {
    if (on_) std::fprintf(stderr, "nufftmp cpu: sort_points M = %lld, ms:%s\n",
                          static_cast<long long>(M), buf_);
  }

 private:
  bool on_;
  Clock::time_point t_ = Clock::now();
  char buf_[256] = {0};
  int n_ = 0;
};

// The passes of the instruction set in use.
template <typename T, typename Count>
std::int64_t count_bins(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* count) {
  return NUFFTMP_CPU_DISPATCH(count_bins, a, j0, j1, count);
}
template <typename T, typename Count, typename Index>
void place_points(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* next,
                  double* g, Index* perm) {
  NUFFTMP_CPU_DISPATCH(place_points, a, j0, j1, next, g, perm);
}
template <typename T, typename Count, typename Index>
void place_points_streamed(const BinPass<T>& a, std::int64_t j0, std::int64_t j1,
                           std::int64_t nbins, Count* next, double* g, Index* perm,
                           std::uint64_t* scratch) {
  NUFFTMP_CPU_DISPATCH(place_points_streamed, a, j0, j1, nbins, next, g, perm, scratch);
}

template <typename T, typename Count>
void place_packed(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* next,
                  std::uint32_t* rec) {
  NUFFTMP_CPU_DISPATCH(place_packed, a, j0, j1, next, rec);
}
template <typename T, typename Count>
void place_packed_streamed(const BinPass<T>& a, std::int64_t j0, std::int64_t j1,
                           std::int64_t nbins, Count* next, std::uint32_t* rec,
                           std::uint64_t* scratch) {
  NUFFTMP_CPU_DISPATCH(place_packed_streamed, a, j0, j1, nbins, next, rec, scratch);
}

// Pass 2 may stream its writes (bin_pass.hpp) when the points are many, a few lines per bin
// and array on average, and the arrays larger than a core's L2 (smaller ones stay in cache for
// the ordinary stores and the execute that reads them next); it does when they fill enough
// bins that the direct place has many lines open (a few bins are a few sequential streams,
// which the direct place writes faster). On this project's 2-core machine, 1 thread, 1e6 float
// points on 128^3 cells (8192 bins), sort_points ms direct / streamed: 8.9 / 11.6 on 16
// nonempty bins, 16.7 / 12.1 on 128, 18.5 / 14.9 on all; on 1024^2 cells (4096 bins) 6.7 / 7.9
// on 16, 14.0 / 8.1 on 64; 1e5 uniform points on 8192 bins 1.3 / 2.1-6, 2e5 3.6 / 3.2 (the
// streamed place of a line per bin and array, before bd63783; on the 16-core Xeon, 1e6
// points at 16 threads, the grouped one: 3D place 1.5-1.7 ms streamed in 16 x 8 x 8 bins).
constexpr std::int64_t kMinStreamedPointsPerBin = 32;
constexpr std::int64_t kMinStreamedBytes = std::int64_t(4) << 20;
constexpr std::int64_t kMinStreamedNonemptyBins = 32;

// Whether the streamed place may be used (then its buffers exist: this depends on M, not on
// where the points lie, so that the same or fewer points allocate nothing).
bool may_stream(int dim, std::int64_t M, std::int64_t nbins, Place place) {
  if (place != Place::Auto) return place == Place::Streamed;
  return nbins >= kMinStreamedNonemptyBins && M >= kMinStreamedPointsPerBin * nbins &&
         M * (dim + 1) * static_cast<std::int64_t>(sizeof(double)) >= kMinStreamedBytes;
}

// The counting sort of the points into the bins of `pass` (one bin: the user's order, which
// still folds, checks and copies them in parallel).
template <int D, typename T, typename Count>
void counting_sort(std::int64_t M, const BinPass<T>& pass, std::int64_t nbins, int nthreads,
                   Place place, bool packed, std::vector<Count>& counts, PhaseTimer& timer,
                   SortedPoints<T>& out) {
  // The points are split into nchunks fixed ranges, each with its own row of counters, which
  // become its private write offsets: a stable sort with no atomics however the points
  // cluster. Threads take chunks round-robin, so a team smaller than asked for still works.
  const int nchunks = nthreads;
  try {
    counts.assign(static_cast<size_t>(nbins * nchunks), 0);
    out.bin_start.resize(static_cast<size_t>(nbins + 1));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "set_points: cannot allocate the bin sort's " +
                                            std::to_string(nbins) + " bins x " +
                                            std::to_string(nchunks) + " chunks");
  }
  timer.lap("counters");
  auto chunk_begin = [&](int c) { return M * c / nchunks; };
  std::int64_t bad = 0;
  Count* cnt = counts.data();
#pragma omp parallel num_threads(nthreads) reduction(+ : bad)
  for (int c = omp_get_thread_num(); c < nchunks; c += omp_get_num_threads())
    bad += count_bins(pass, chunk_begin(c), chunk_begin(c + 1), cnt + c * nbins);
  timer.lap("count");
  // Bad coordinates: the check's own scan names the first one (nothing has been written yet,
  // so the previous points stay valid).
  if (bad != 0) {
    check_points_host<T>(D, M, pass.in[0], pass.in[1], pass.in[2]);
    throw Error(ErrorCode::Internal, "set_points: a coordinate failed the fold check");
  }
  // Offsets: bin by bin, chunk by chunk (the sort is stable), in parallel over ranges of bins:
  // each range's total, a prefix over the ranges, then each range's offsets from its prefix.
  // (Serial, the nbins x nchunks pass was 0.6 ms of 3.5 at 16 threads in 3D: 131072 counters.)
  const int offset_threads = threads_for(4.0 * static_cast<double>(nbins) * nchunks, nthreads);
  try {
    out.range_start.assign(static_cast<size_t>(offset_threads) + 1, 0);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "set_points: cannot allocate the bin sort's offsets");
  }
  std::int64_t* range_start = out.range_start.data();
  std::int64_t nonempty = 0;
#pragma omp parallel num_threads(offset_threads) reduction(+ : nonempty)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::int64_t b0 = nbins * t / nt, b1 = nbins * (t + 1) / nt;
    std::int64_t sum = 0;
    for (std::int64_t b = b0; b < b1; ++b)
      for (int c = 0; c < nchunks; ++c) sum += static_cast<std::int64_t>(cnt[c * nbins + b]);
    range_start[t + 1] = sum;
#pragma omp barrier
#pragma omp single
    for (int r = 0; r < nt; ++r) range_start[r + 1] += range_start[r];
    std::int64_t offset = range_start[t];
    for (std::int64_t b = b0; b < b1; ++b) {
      out.bin_start[b] = offset;
      for (int c = 0; c < nchunks; ++c) {
        const std::int64_t n = static_cast<std::int64_t>(cnt[c * nbins + b]);
        cnt[c * nbins + b] = static_cast<Count>(offset);
        offset += n;
      }
      nonempty += offset > out.bin_start[b];
    }
  }
  out.bin_start[nbins] = M;
  // Only now may the previous points go: the arrays grow (discarding them) or are reused.
  out.M = 0;
  out.packed = false;
  if (packed) {
    out.rec.ensure(M * (D + 1), "set_points (sorted points)");
  } else {
    out.g.ensure(M * D, "set_points (sorted coordinates)");
    // 32-bit indices below 2^31 points, unless a 64-bit permutation already has the room.
    out.wide_perm = M > std::int64_t(INT32_MAX) || out.perm64.capacity() >= M;
    if (out.wide_perm) out.perm64.ensure(M, "set_points (sort permutation)");
    else out.perm32.ensure(M, "set_points (sort permutation)");
  }
  // The streamed place's line buffers: their size depends on the bins and the threads.
  const bool may = may_stream(D, M, nbins, place);
  const std::int64_t words =
      ((packed ? packed_streamed_words_per_bin(D) : streamed_words_per_bin(D)) * nbins + 7) &
      ~std::int64_t(7);  // lines
  if (may) out.line_buffers.ensure(words * nthreads, "set_points (line buffers)");
  const bool streamed =
      may && (place == Place::Streamed || nonempty >= kMinStreamedNonemptyBins);
  timer.lap("offsets");
  double* g = out.g.data();
  std::uint64_t* buffers = out.line_buffers.data();
  auto place_all = [&](auto* perm) {
#pragma omp parallel num_threads(nthreads)
    for (int c = omp_get_thread_num(); c < nchunks; c += omp_get_num_threads()) {
      if (streamed)
        place_points_streamed(pass, chunk_begin(c), chunk_begin(c + 1), nbins, cnt + c * nbins,
                              g, perm, buffers + omp_get_thread_num() * words);
      else
        place_points(pass, chunk_begin(c), chunk_begin(c + 1), cnt + c * nbins, g, perm);
    }
  };
  if (packed) {
    if constexpr (std::is_same_v<Count, std::uint32_t>) {  // packed: M < 2^31
      std::uint32_t* rec = out.rec.data();
#pragma omp parallel num_threads(nthreads)
      for (int c = omp_get_thread_num(); c < nchunks; c += omp_get_num_threads()) {
        if (streamed)
          place_packed_streamed(pass, chunk_begin(c), chunk_begin(c + 1), nbins,
                                cnt + c * nbins, rec, buffers + omp_get_thread_num() * words);
        else
          place_packed(pass, chunk_begin(c), chunk_begin(c + 1), cnt + c * nbins, rec);
      }
    } else {  // sort_dim packs only below 2^31 points, which count in uint32
      throw Error(ErrorCode::Internal, "set_points: the packed layout with 64-bit counts");
    }
  } else if (out.wide_perm) {
    place_all(out.perm64.data());
  } else {
    place_all(out.perm32.data());
  }
  out.packed = packed;
  timer.lap(streamed ? (packed ? "place (packed, streamed)" : "place (streamed)")
                     : (packed ? "place (packed)" : "place"));
}

template <int D, typename T>
void box_of_points(const SortedPoints<T>& pts, int w, Subproblem& sp) {
  for (int d = 0; d < D; ++d) {
    // first_cell is nondecreasing in g: the box follows from the extreme coordinates.
    const double* g = pts.g.data() + d;
    double gmin = g[sp.begin * D], gmax = gmin;
    for (std::int64_t j = sp.begin + 1; j < sp.end; ++j) {
      gmin = g[j * D] < gmin ? g[j * D] : gmin;
      gmax = g[j * D] > gmax ? g[j * D] : gmax;
    }
    sp.lo[d] = generic::first_cell(gmin, w);
    sp.extent[d] = generic::first_cell(gmax, w) - sp.lo[d] + w;
  }
}

template <int D, typename T>
void sort_dim(std::int64_t M, const T* x, const T* y, const T* z,
              const std::array<std::int64_t, 3>& nf, int w, bool sort, int nthreads, int debug,
              Place place, BinShape shape, bool allow_packed, SortedPoints<T>& out) {
  PhaseTimer timer(debug >= 2);
  // Below a few hundred thousand operations one thread is faster (threads.hpp).
  const int sort_threads = threads_for(20.0 * M, nthreads);
  const BinLayout bins = make_bin_layout(D, nf, shape);
  // Unsorted: a single bin (every bin number 0).
  BinPass<T> pass;
  pass.dim = D;
  double stride = 1;
  for (int d = 0; d < D; ++d) {
    pass.in[d] = d == 0 ? x : d == 1 ? y : z;
    pass.nf[d] = static_cast<double>(nf[d]);
    pass.inv_size[d] = sort ? std::ldexp(1.0, -bins.log_size[d]) : 0.0;
    pass.top[d] = sort ? static_cast<double>(bins.count[d] - 1) : 0.0;
    pass.stride[d] = stride;
    stride *= static_cast<double>(bins.count[d]);
    pass.size[d] = std::ldexp(1.0, bins.log_size[d]);
    pass.fscale[d] = std::ldexp(1.0, 32 - bins.log_size[d]);
  }
  const std::int64_t nbins = sort ? bins.total() : 1;
  // The packed layout (sorted_points.hpp) for sorted float points below 2^31: its fixed point
  // is relative to a bin of at most 2^s cells (unsorted, one bin of the whole grid, it would
  // not be precise enough), and double keeps g (32 bits would not hold its precision).
  const bool packed = allow_packed && std::is_same_v<T, float> && sort &&
                      M <= std::int64_t(INT32_MAX);
  if (M < (std::int64_t(1) << 32))
    counting_sort<D>(M, pass, nbins, sort_threads, place, packed, out.counts32, timer, out);
  else
    counting_sort<D>(M, pass, nbins, sort_threads, place, packed, out.counts64, timer, out);
  out.layout = sort ? bins : BinLayout{};
  out.layout.dim = D;
  for (int d = 0; d < 3; ++d) out.unit[d] = std::ldexp(1.0, out.layout.log_size[d] - 32);

  // Subproblems: runs of consecutive sorted points, cut for the engine's threads. Unsorted
  // points spread over the whole grid whatever the run length: then one run per thread.
  // In 3D the runs are also cut where a slab of bins (one bin along z) ends, each slab's points
  // in equal runs: bins are numbered x fastest, so a run that crossed into the next slab had a
  // box of every y row of both slabs (64^3 modes, M = 1e6: 251384 cells for 10000 points,
  // against ~50000 for a run inside a slab), all of it zeroed and added back to the grid.
  const std::int64_t per = std::max<std::int64_t>(
      1, sort ? std::min<std::int64_t>(kMaxSubproblemPoints, (M + nthreads - 1) / nthreads)
              : (M + nthreads - 1) / nthreads);
  const std::int64_t* starts = out.bin_start.data();
  const std::int64_t* starts_end = starts + nbins + 1;
  const bool by_slab = sort && D == 3;
  const std::int64_t slab_bins = bins.count[0] * bins.count[1];
  // Runs of slab k (by_slab): the slab's points [a, b) in ceil((b - a) / per) equal parts.
  auto slab_range = [&](std::int64_t k, std::int64_t& a, std::int64_t& b) {
    a = starts[k * slab_bins];
    b = starts[std::min(nbins, (k + 1) * slab_bins)];
  };
  std::int64_t nsub = (M + per - 1) / per;
  if (by_slab) {
    nsub = 0;
    for (std::int64_t k = 0; k < bins.count[2]; ++k) {
      std::int64_t a, b;
      slab_range(k, a, b);
      nsub += (b - a + per - 1) / per;
    }
  }
  try {
    out.subproblems.resize(static_cast<size_t>(nsub));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory,
                "set_points: cannot allocate " + std::to_string(nsub) + " subproblems");
  }
  if (by_slab) {
    std::int64_t s = 0;
    for (std::int64_t k = 0; k < bins.count[2]; ++k) {
      std::int64_t a, b;
      slab_range(k, a, b);
      const std::int64_t parts = (b - a + per - 1) / per;
      for (std::int64_t q = 0; q < parts; ++q, ++s) {
        out.subproblems[s].begin = a + q * (b - a) / parts;
        out.subproblems[s].end = a + (q + 1) * (b - a) / parts;
      }
    }
  }
  std::int64_t max_cells = 0, max_points = 0;
#pragma omp parallel for num_threads(threads_for(1000.0 * nsub, nthreads)) schedule(static) \
    reduction(max : max_cells, max_points)
  for (std::int64_t s = 0; s < nsub; ++s) {
    Subproblem& sp = out.subproblems[s];
    if (!by_slab) {
      sp.begin = s * per;
      sp.end = std::min(M, sp.begin + per);
    }
    max_points = std::max(max_points, sp.end - sp.begin);
    for (int d = D; d < 3; ++d) {
      sp.lo[d] = 0;
      sp.extent[d] = 1;
    }
    if (sort) {
      // The bins holding the first and the last point: the last bin starting at or before it
      // (empty bins share their start with the next nonempty one).
      const std::int64_t b0 = std::upper_bound(starts, starts_end, sp.begin) - starts - 1;
      const std::int64_t b1 = std::upper_bound(starts, starts_end, sp.end - 1) - starts - 1;
      box_of_bins(bins, nf, w, starts, b0, b1, sp);
    } else {
      box_of_points<D>(out, w, sp);
    }
    max_cells = std::max(max_cells, sp.cells());
  }
  out.max_subproblem_cells = max_cells;
  out.max_subproblem_points = max_points;
  out.dim = D;
  out.M = M;  // only now: a failure above leaves no half-sorted points behind
  timer.lap("subproblems");
  timer.print(M);
}

}  // namespace

BinLayout make_bin_layout(int dim, const std::array<std::int64_t, 3>& nf, BinShape shape) {
  BinLayout b;
  b.dim = dim;
  const bool small = shape == BinShape::Small && dim == 3;
  for (int d = 0; d < 3; ++d)
    b.log_size[d] = d >= dim ? 0 : small ? kLogBinSizeSmall3D[d] : kLogBinSize[dim - 1][d];
  auto count = [&] {
    for (int d = 0; d < 3; ++d)
      b.count[d] = d < dim ? ((nf[d] - 1) >> b.log_size[d]) + 1 : 1;
  };
  count();
  while (b.total() > kMaxBins && (std::int64_t(1) << b.log_size[0]) < nf[0]) {
    ++b.log_size[0];
    count();
  }
  return b;
}

void box_of_bins(const BinLayout& bins, const std::array<std::int64_t, 3>& nf, int w,
                 const std::int64_t* bin_start, std::int64_t b0, std::int64_t b1,
                 Subproblem& sp) {
  std::int64_t lo[3] = {bins.count[0], bins.count[1], bins.count[2]}, hi[3] = {-1, -1, -1};
  const std::int64_t nx = bins.count[0], ny = bins.count[1];
  for (std::int64_t b = b0; b <= b1; ++b) {
    if (bin_start[b + 1] == bin_start[b]) continue;
    const std::int64_t c[3] = {b % nx, (b / nx) % ny, b / (nx * ny)};
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], c[d]);
      hi[d] = std::max(hi[d], c[d]);
    }
  }
  for (int d = 0; d < bins.dim; ++d) {
    if (hi[d] < lo[d]) {  // no point: an empty box
      sp.lo[d] = 0;
      sp.extent[d] = 0;
      continue;
    }
    // Coordinates in [lo 2^s, min((hi + 1) 2^s, nf)); first_cell is nondecreasing, so the
    // upper end (excluded, at most one cell too many) bounds the last first cell.
    const double g0 = static_cast<double>(lo[d] << bins.log_size[d]);
    const double g1 = static_cast<double>(std::min((hi[d] + 1) << bins.log_size[d], nf[d]));
    sp.lo[d] = generic::first_cell(g0, w);
    sp.extent[d] = generic::first_cell(g1, w) - sp.lo[d] + w;
  }
}

template <typename T>
void sort_points(int dim, std::int64_t M, const T* x, const T* y, const T* z,
                 const std::array<std::int64_t, 3>& nf, int w, bool sort, int nthreads,
                 int debug, SortedPoints<T>& out, Place place, BinShape shape,
                 bool allow_packed) {
  if (M == 0) {
    out.M = 0;
    out.dim = dim;
    out.subproblems.clear();
    out.max_subproblem_cells = 0;
    out.max_subproblem_points = 0;
    return;
  }
  const bool pk = allow_packed;
  switch (dim) {
    case 1: sort_dim<1>(M, x, y, z, nf, w, sort, nthreads, debug, place, shape, pk, out); break;
    case 2: sort_dim<2>(M, x, y, z, nf, w, sort, nthreads, debug, place, shape, pk, out); break;
    default: sort_dim<3>(M, x, y, z, nf, w, sort, nthreads, debug, place, shape, pk, out); break;
  }
}

template <typename T>
double SortedPoints<T>::coord(std::int64_t j, int d) const {
  if (!packed) return g[j * dim + d];
  double out[3];
  generic::PointReader<T> r(*this);
  switch (dim) {
    case 1: return r.template read<1>(j, 1, out)[d];
    case 2: return r.template read<2>(j, 1, out)[d];
    default: return r.template read<3>(j, 1, out)[d];
  }
}
template struct SortedPoints<float>;
template struct SortedPoints<double>;

template void sort_points<float>(int, std::int64_t, const float*, const float*, const float*,
                                 const std::array<std::int64_t, 3>&, int, bool, int, int,
                                 SortedPoints<float>&, Place, BinShape, bool);
template void sort_points<double>(int, std::int64_t, const double*, const double*,
                                  const double*, const std::array<std::int64_t, 3>&, int, bool,
                                  int, int, SortedPoints<double>&, Place, BinShape, bool);

}  // namespace nufftmp::detail::cpu
