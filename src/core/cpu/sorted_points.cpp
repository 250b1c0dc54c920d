#include "cpu/sorted_points.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "common/checks.hpp"
#include "common/stopwatch.hpp"
#include "cpu/bin_pass.hpp"
#include "cpu/isa.hpp"
#include "cpu/kernel_eval.hpp"
#include "cpu/threads.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail::cpu {

namespace {

// Bin shapes (log2 of the cells per axis) before make_bin_layout's cap.
constexpr int kLogBinSize[3][3] = {{8, 0, 0}, {5, 3, 0}, {4, 2, 2}};
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
template <typename T, typename Count>
void place_points(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* next,
                  double* g, std::int64_t* perm) {
  NUFFTMP_CPU_DISPATCH(place_points, a, j0, j1, next, g, perm);
}
template <typename T, typename Count>
void place_buckets(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, int log_bucket,
                   std::int64_t nbuckets, Count* next, double* g, std::int64_t* perm,
                   std::uint64_t* scratch) {
  NUFFTMP_CPU_DISPATCH(place_buckets, a, j0, j1, log_bucket, nbuckets, next, g, perm, scratch);
}

// The two-level place. A one-level place writes 2 streams per bin (coordinates, perm), and
// with thousands of bins their lines fall out of L1/L2 between writes (store misses: 16 ms
// per 1e6 points in 3D where writing the same bytes in order takes ~4). Buckets of 2^log
// bins, at most kTargetBuckets of them, keep level A's streams few; a bucket's range (at most
// kMaxBucketPoints points) is then sorted in L2.
static const std::int64_t kMinBinsTwoLevel = getenv("MB") ? atoll(getenv("MB")) : 1024;
static const std::int64_t kTargetBuckets = getenv("TB") ? atoll(getenv("TB")) : 256;
constexpr std::int64_t kMaxBucketPoints = std::int64_t(1) << 18;

struct Buckets {
  int log = 0;             // bins per bucket: 2^log
  std::int64_t count = 0;  // 0: one-level place
};

// The buckets for nbins bins, or none (one-level place) when there are few bins.
Buckets choose_buckets(std::int64_t nbins, std::int64_t M, Place place) {
  Buckets b;
  if (place == Place::OneLevel || nbins < 2 || M >= (std::int64_t(1) << (63 - kRankBits)) ||
      (place == Place::Auto && nbins < kMinBinsTwoLevel))
    return b;
  static const int tl = getenv("TL") ? atoi(getenv("TL")) : 2;
  if (tl == 0) return b;
  if (tl == 1) { b.log = 0; b.count = nbins; return b; }
  b.log = 1;
  while (((nbins - 1) >> b.log) + 1 > std::min<std::int64_t>(kTargetBuckets, kMaxBuckets)) ++b.log;
  if (b.log > kRankBits) return Buckets{};
  b.count = ((nbins - 1) >> b.log) + 1;
  return b;
}

// Level B for the bucket of bins [b0, b0 + nb) (nb <= 2^kRankBits), whose points level A wrote
// to [bin_start[b0], bin_start[b0 + nb)) in the order pass 1 counted them (chunk by chunk,
// each in the user's order): copied to the thread's buffer, then written back bin by bin
// (the same stable order as the one-level place).
template <int D>
void sort_bucket(const std::int64_t* bin_start, std::int64_t b0, int nb, double* g,
                 std::int64_t* perm, double* tg, std::int64_t* tperm) {
  const std::int64_t s = bin_start[b0], n = bin_start[b0 + nb] - s;
  if (n == 0) return;
  std::int64_t next[std::int64_t(1) << kRankBits];
  for (int r = 0; r < nb; ++r) next[r] = bin_start[b0 + r];
  std::memcpy(tg, g + s * D, static_cast<std::size_t>(n * D) * sizeof(double));
  std::memcpy(tperm, perm + s, static_cast<std::size_t>(n) * sizeof(std::int64_t));
  constexpr std::int64_t rank_mask = (std::int64_t(1) << kRankBits) - 1;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t p = next[tperm[i] & rank_mask]++;
    perm[p] = tperm[i] >> kRankBits;
    for (int d = 0; d < D; ++d) g[p * D + d] = tg[i * D + d];
  }
}

// The counting sort of the points into the bins of `pass` (one bin: the user's order, which
// still folds, checks and copies them in parallel).
template <int D, typename T, typename Count>
void counting_sort(std::int64_t M, const BinPass<T>& pass, std::int64_t nbins, int nthreads,
                   Place place, std::vector<Count>& counts, PhaseTimer& timer,
                   SortedPoints<T>& out) {
  // The points are split into nchunks fixed ranges, each with its own row of counters, which
  // become its private write offsets: a stable sort with no atomics however the points
  // cluster. Threads take chunks round-robin, so a team smaller than asked for still works.
  const int nchunks = nthreads;
  const Buckets buckets = choose_buckets(nbins, M, place);
  try {
    // Per chunk: a counter per bin, then (two-level place) a cursor per bucket.
    counts.assign(static_cast<size_t>((nbins + buckets.count) * nchunks), 0);
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
  // Level A's cursors: bucket by bucket, chunk by chunk, each chunk's share of a bucket in
  // its order, so that level B meets every bin's points in the one-level place's order. A
  // bucket too large for level B's buffer: the one-level place.
  Count* bucket_next = cnt + nbins * nchunks;
  bool two_level = buckets.count > 0;
  if (two_level) {
    std::int64_t offset = 0;
    for (std::int64_t k = 0; k < buckets.count && two_level; ++k) {
      const std::int64_t b0 = k << buckets.log, b1 = std::min(nbins, (k + 1) << buckets.log);
      const std::int64_t first = offset;
      for (int c = 0; c < nchunks; ++c) {
        bucket_next[c * buckets.count + k] = static_cast<Count>(offset);
        for (std::int64_t b = b0; b < b1; ++b)
          offset += static_cast<std::int64_t>(cnt[c * nbins + b]);
      }
      two_level = offset - first <= kMaxBucketPoints;
    }
  }
  // Offsets: bin by bin, chunk by chunk (the sort is stable).
  std::int64_t offset = 0;
  for (std::int64_t b = 0; b < nbins; ++b) {
    out.bin_start[b] = offset;
    for (int c = 0; c < nchunks; ++c) {
      const std::int64_t n = static_cast<std::int64_t>(cnt[c * nbins + b]);
      cnt[c * nbins + b] = static_cast<Count>(offset);
      offset += n;
    }
  }
  out.bin_start[nbins] = offset;
  // Only now may the previous points go: the arrays grow (discarding them) or are reused.
  out.M = 0;
  out.g.ensure(M * D, "set_points (sorted coordinates)");
  out.perm.ensure(M, "set_points (sort permutation)");
  // Level B's buffers, whenever buckets may be used (not only when they are this time): their
  // size depends on M and the threads only, so the same or fewer points allocate nothing.
  const std::int64_t buffer = std::min(M, kMaxBucketPoints);
  const std::int64_t line_words = (buckets.count * 18 + 7) & ~std::int64_t(7);  // whole lines
  if (buckets.count > 0) {
    out.line_buffers.ensure(line_words * nthreads, "set_points (line buffers)");
    out.bucket_g.ensure(buffer * nthreads * D, "set_points (bucket buffer)");
    out.bucket_perm.ensure(buffer * nthreads, "set_points (bucket buffer)");
  }
  timer.lap("offsets");
  double* g = out.g.data();
  std::int64_t* perm = out.perm.data();
  if (!two_level) {
#pragma omp parallel num_threads(nthreads)
    for (int c = omp_get_thread_num(); c < nchunks; c += omp_get_num_threads())
      place_points(pass, chunk_begin(c), chunk_begin(c + 1), cnt + c * nbins, g, perm);
    timer.lap("place");
    return;
  }
#pragma omp parallel num_threads(nthreads)
  for (int c = omp_get_thread_num(); c < nchunks; c += omp_get_num_threads())
    place_buckets(pass, chunk_begin(c), chunk_begin(c + 1), buckets.log, buckets.count,
                  bucket_next + c * buckets.count, g, perm,
                  out.line_buffers.data() + omp_get_thread_num() * line_words);
  timer.lap("bucket");
  if (buckets.log == 0) return;
  const std::int64_t* starts = out.bin_start.data();
  const int per_bucket = 1 << buckets.log;
#pragma omp parallel num_threads(nthreads)
  {
    double* tg = out.bucket_g.data() + omp_get_thread_num() * buffer * D;
    std::int64_t* tperm = out.bucket_perm.data() + omp_get_thread_num() * buffer;
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t k = 0; k < buckets.count; ++k) {
      const std::int64_t b0 = k << buckets.log;
      sort_bucket<D>(starts, b0, static_cast<int>(std::min<std::int64_t>(per_bucket, nbins - b0)),
                     g, perm, tg, tperm);
    }
  }
  timer.lap("sort buckets");
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
              Place place, SortedPoints<T>& out) {
  PhaseTimer timer(debug >= 2);
  // Below a few hundred thousand operations one thread is faster (threads.hpp).
  const int sort_threads = threads_for(20.0 * M, nthreads);
  const BinLayout bins = make_bin_layout(D, nf);
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
  }
  const std::int64_t nbins = sort ? bins.total() : 1;
  if (M < (std::int64_t(1) << 32))
    counting_sort<D>(M, pass, nbins, sort_threads, place, out.counts32, timer, out);
  else
    counting_sort<D>(M, pass, nbins, sort_threads, place, out.counts64, timer, out);

  // Subproblems: runs of consecutive sorted points, cut for the engine's threads. Unsorted
  // points spread over the whole grid whatever the run length: then one run per thread.
  const std::int64_t per = std::max<std::int64_t>(
      1, sort ? std::min<std::int64_t>(kMaxSubproblemPoints, (M + nthreads - 1) / nthreads)
              : (M + nthreads - 1) / nthreads);
  const std::int64_t nsub = (M + per - 1) / per;
  try {
    out.subproblems.resize(static_cast<size_t>(nsub));
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory,
                "set_points: cannot allocate " + std::to_string(nsub) + " subproblems");
  }
  const std::int64_t* starts = out.bin_start.data();
  const std::int64_t* starts_end = starts + nbins + 1;
  std::int64_t max_cells = 0;
#pragma omp parallel for num_threads(threads_for(1000.0 * nsub, nthreads)) schedule(static) \
    reduction(max : max_cells)
  for (std::int64_t s = 0; s < nsub; ++s) {
    Subproblem& sp = out.subproblems[s];
    sp.begin = s * per;
    sp.end = std::min(M, sp.begin + per);
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
  out.max_subproblem_points = per;
  out.dim = D;
  out.M = M;  // only now: a failure above leaves no half-sorted points behind
  timer.lap("subproblems");
  timer.print(M);
}

}  // namespace

BinLayout make_bin_layout(int dim, const std::array<std::int64_t, 3>& nf) {
  BinLayout b;
  b.dim = dim;
  for (int d = 0; d < 3; ++d) b.log_size[d] = d < dim ? kLogBinSize[dim - 1][d] : 0;
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
                 int debug, SortedPoints<T>& out, Place place) {
  if (M == 0) {
    out.M = 0;
    out.dim = dim;
    out.subproblems.clear();
    out.max_subproblem_cells = 0;
    out.max_subproblem_points = 0;
    return;
  }
  switch (dim) {
    case 1: sort_dim<1>(M, x, y, z, nf, w, sort, nthreads, debug, place, out); break;
    case 2: sort_dim<2>(M, x, y, z, nf, w, sort, nthreads, debug, place, out); break;
    default: sort_dim<3>(M, x, y, z, nf, w, sort, nthreads, debug, place, out); break;
  }
}

template void sort_points<float>(int, std::int64_t, const float*, const float*, const float*,
                                 const std::array<std::int64_t, 3>&, int, bool, int, int,
                                 SortedPoints<float>&, Place);
template void sort_points<double>(int, std::int64_t, const double*, const double*,
                                  const double*, const std::array<std::int64_t, 3>&, int, bool,
                                  int, int, SortedPoints<double>&, Place);

}  // namespace nufftmp::detail::cpu
