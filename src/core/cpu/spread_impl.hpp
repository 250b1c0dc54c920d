// Spreading (type 1), compiled once per instruction set: included only by isa_*.cpp, each
// of which defines NUFFTMP_CPU_ISA first (see kernel_eval.hpp for why).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/row_locks.hpp"
#include "cpu/point_reader.hpp"
#include "cpu/spread_interp_isa.hpp"
#include "cpu/vec.hpp"
#include "cpu/width_dispatch.hpp"

namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA {

namespace {

// Beyond this many threads a global lock on the add-back would serialize them; locks per
// row of the grid (row_locks.hpp) are then cheaper.
constexpr int kMaxThreadsForLockedAdd = 4;

// Adds ky[dy] * kz[dz] * kc to the W^(D-1) rows of one point, NV aligned vectors per row:
// kc is the point's x-kernel times its strength, shifted to the vector boundary (zeros
// around it), kz is folded into kc once per z-plane and the y/z loops have constant trip
// counts, so the rows cost NV loads, multiply-adds and stores each and nothing else.
template <int D, int W, int NV, typename T>
inline void spread_rows(T* __restrict p0, std::int64_t ystride, std::int64_t zstride,
                        const T* __restrict kc, const T* ky, const T* kz) {
  using V = vec_t<T>;
  constexpr int L = Vec<T>::lanes;
  V kv[NV];
  for (int i = 0; i < NV; ++i) vload(kv[i], kc + i * L);
  for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
    V kzv[NV];
    for (int i = 0; i < NV; ++i) kzv[i] = D == 3 ? kv[i] * kz[dz] : kv[i];
    T* __restrict pz = p0 + dz * zstride;
    for (int dy = 0; dy < (D >= 2 ? W : 1); ++dy) {
      const T y = D >= 2 ? ky[dy] : T(1);
      T* __restrict p = pz + dy * ystride;
      for (int i = 0; i < NV; ++i) {
        V a;
        vload(a, p + i * L);
        a += y * kzv[i];
        vstore(p + i * L, a);
      }
    }
  }
}

// Spreads the points of sp into box (interleaved re/im, nvec boxes of box_reals values, rows
// of box_row_cells(sp) cells so that every row starts on a 64-byte boundary; box is 64-byte
// aligned, and all zero on entry: add_box leaves it so). cs receives the subproblem's strengths in sorted order first: c is in the user's
// order, and a tight gather loop keeps many cache misses in flight where the spreading loop
// would wait for each one (that alone was 40% of the time for uniform random points).
//
// Each (point, vector) pair's shifted x-kernel kc is built one pair ahead, into the other of
// two buffers, before the rows of the current pair: the rows load kc as whole vectors, and a
// load spanning several narrower stores still in flight cannot be forwarded from them (it
// waits until they reach L1). Built just before its rows, those two loads were 10% of the
// samples of a 3D float type 1 execute (perf, 2-core Xeon, AVX-512). The kernel values come
// a group of points at a time (kernel_values_points), the group after the current one
// computed with the current group's last pair, so that kc never waits on a Horner chain.
// Measured at one thread, M = 1e6, AVX-512 (section 2 of docs/performance.md): execute 3D
// float 1e-5 89 -> 70 ms, 2D double 1e-9 95 -> 86, 1D double 1e-9 33 -> 28.
template <int D, int W, typename T>
void spread_box(const Subproblem& sp, const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                const std::complex<T>* c, int nvec, std::int64_t box_reals, T* __restrict box,
                T* __restrict cs) {
  constexpr int C = Vec<T>::cells;
  constexpr int NV0 = (W + C - 1) / C;  // vectors per row when the point's shift allows
  constexpr int WP = KernelEvaluator<T>::padded_width(W);
  constexpr int KC = 2 * (NV0 + 1) * C;
  const std::int64_t e0 = box_row_cells<T>(sp), e1 = sp.extent[1];
  const std::int64_t M = pts.M, n = sp.end - sp.begin;
  if (n <= 0) return;
  constexpr std::int64_t kPrefetch = 32;  // distance of the random reads' prefetches
  pts.with_perm([&](auto all) {  // a pointer, or the packed layout's StridedIndex
    const auto perm = all + sp.begin;
    for (int v = 0; v < nvec; ++v)
      for (std::int64_t j = 0; j < n; ++j) {
        if (j + kPrefetch < n) __builtin_prefetch(c + v * M + perm[j + kPrefetch]);
        // One move of the whole complex value (with the packed layout's StridedIndex, GCC built
        // cv from its two floats through the stack and reloaded it as one word: a failed store
        // forwarding, 8% of a clustered 3D float type 1 run).
        std::memcpy(cs + 2 * (v * n + j), c + v * M + perm[j], sizeof(std::complex<T>));
      }
  });
  const std::int64_t ystride = 2 * e0, zstride = 2 * e0 * e1;
  // Two groups' kernel values (kernel_values_points), box offsets and shifts, and two pairs'
  // shifted x-kernels.
  constexpr int G = kernel_group<D, W, T>();
  alignas(64) T k[2][G * D][WP];
  alignas(64) T kc[2][KC];
  std::int64_t start[2][G] = {};
  int shift[2][G] = {};
  PointReader<T> points(pts);
  alignas(64) double gq[G * D];  // a group's coordinates decoded from the packed layout
  auto prepare_group = [&](std::int64_t j0, int s) __attribute__((always_inline)) {
    const int ng = static_cast<int>(sp.end - j0 < G ? sp.end - j0 : G);
    std::int64_t i0[G][3] = {};
    kernel_values_points<G, D, W>(ker, points.template read<D>(j0, ng, gq), ng, i0, k[s]);
    for (int q = 0; q < ng; ++q) {
      std::int64_t off[3] = {0, 0, 0};
      for (int d = 0; d < D; ++d) off[d] = i0[q][d] - sp.lo[d];
      shift[s][q] = static_cast<int>(off[0] & (C - 1));
      start[s][q] = off[2] * zstride + off[1] * ystride + 2 * (off[0] - shift[s][q]);
    }
  };
  // kc: point j's (the q-th of its group's) x-kernel times its v-th strength, shifted to the
  // vector boundary (zeros around it).
  auto prepare_pair = [&](std::int64_t j, int v, int s, int q, T* __restrict out) {
    const T cr = cs[2 * (v * n + j - sp.begin)], ci = cs[2 * (v * n + j - sp.begin) + 1];
    const T* kx = k[s][q * D];
    for (int i = 0; i < KC; ++i) out[i] = T(0);
    for (int i = 0; i < W; ++i) {
      out[2 * (shift[s][q] + i)] = kx[i] * cr;
      out[2 * (shift[s][q] + i) + 1] = kx[i] * ci;
    }
  };
  int gs = 0, qs = 0;  // the current group's and pair's buffers
  prepare_group(sp.begin, gs);
  prepare_pair(sp.begin, 0, gs, 0, kc[qs]);
  for (std::int64_t jg = sp.begin; jg < sp.end; jg += G) {
    const int ng = static_cast<int>(sp.end - jg < G ? sp.end - jg : G);
    for (int q = 0; q < ng; ++q) {
      const std::int64_t j = jg + q;
      for (int v = 0; v < nvec; ++v) {
        if (v + 1 < nvec) {  // the next pair first: the same point's next vector,
          prepare_pair(j, v + 1, gs, q, kc[qs ^ 1]);
        } else if (q + 1 < ng) {  // or the next point's first
          prepare_pair(j + 1, 0, gs, q + 1, kc[qs ^ 1]);
        } else if (j + 1 < sp.end) {  // in the next group
          prepare_group(j + 1, gs ^ 1);
          prepare_pair(j + 1, 0, gs ^ 1, 0, kc[qs ^ 1]);
        }
        // The shift decides how many aligned vectors cover the row: always storing the larger
        // number was 15% slower (the loop is bound by its stores), and aligned stores beat
        // unaligned ones of the exact row length by 10-15% (no stores split across lines).
        T* p0 = box + v * box_reals + start[gs][q];
        const T* ky = k[gs][q * D + (D > 1 ? 1 : 0)];
        const T* kz = k[gs][q * D + D - 1];
        if (W + shift[gs][q] <= NV0 * C)
          spread_rows<D, W, NV0>(p0, ystride, zstride, kc[qs], ky, kz);
        else
          spread_rows<D, W, NV0 + 1>(p0, ystride, zstride, kc[qs], ky, kz);
        qs ^= 1;
      }
    }
    gs ^= 1;
  }
}

// Adds the nvec boxes of sp (box_reals apart) into the grids, wrapping periodically; x runs
// are cut where they wrap so that the inner loop stays contiguous. locks: null when the
// caller holds the grid alone (one thread, or a critical section), else each run is added
// under its row's lock, cut at the locks' chunks.
template <typename T>
void add_box(const Subproblem& sp, T* box, std::int64_t box_reals, int nvec,
             const GridShape<T>& shape, T* grid, RowLocks* locks) {
  const auto& nf = shape.nf;
  const std::int64_t e0 = box_row_cells<T>(sp);
  const std::int64_t total = shape.cells();
  for (int v = 0; v < nvec; ++v)
    for (std::int64_t z = 0; z < sp.extent[2]; ++z) {
      const std::int64_t gz = wrap_index(sp.lo[2] + z, nf[2]);
      for (std::int64_t y = 0; y < sp.extent[1]; ++y) {
        const std::int64_t gy = wrap_index(sp.lo[1] + y, nf[1]);
        T* src = box + v * box_reals + 2 * ((z * sp.extent[1] + y) * e0);
        T* dst = grid + 2 * (v * total + (gz * nf[1] + gy) * shape.row + shape.pad);
        const std::int64_t row = (v * nf[2] + gz) * nf[1] + gy;
        for (std::int64_t l = 0; l < sp.extent[0];) {
          const std::int64_t gx = wrap_index(sp.lo[0] + l, nf[0]);
          std::int64_t run = (sp.extent[0] - l < nf[0] - gx ? sp.extent[0] - l : nf[0] - gx);
          const std::int64_t chunk = gx / RowLocks::kChunk;
          if (locks) run = std::min(run, (chunk + 1) * RowLocks::kChunk - gx);
          T* s = src + 2 * l;
          T* d = dst + 2 * gx;
          omp_lock_t* lock = locks ? locks->of(row, chunk) : nullptr;
          if (lock) omp_set_lock(lock);
          for (std::int64_t i = 0; i < 2 * run; ++i) {
            d[i] += s[i];
            s[i] = T(0);
          }
          if (lock) omp_unset_lock(lock);
          l += run;
        }
      }
    }
}

template <int W, typename T>
void spread_width(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                const GridShape<T>& shape, const std::complex<T>* c, int nvec, T* grid,
                std::int64_t box_reals, int nthreads, std::vector<std::vector<T>>& scratch) {
  const auto nsub = static_cast<std::int64_t>(pts.subproblems.size());
  RowLocks* const locks = nthreads > kMaxThreadsForLockedAdd ? &row_locks() : nullptr;
#pragma omp parallel num_threads(nthreads)
  {
    T* const buf = scratch[omp_get_thread_num()].data();
    const auto misalign = reinterpret_cast<std::uintptr_t>(buf) % 64;  // a multiple of sizeof(T)
    T* box = buf + (misalign == 0 ? 0 : (64 - misalign) / sizeof(T));
    T* cs = box + box_reals * nvec;
    // Zeroed once here; add_box zeroes what it has read, while it is in cache, so that the
    // next subproblem finds its box zero (a separate pass per subproblem over boxes larger
    // than L2 was 4% of the time). Rows' padding cells only ever receive exact zeros.
    for (std::int64_t i = 0; i < box_reals * nvec; ++i) box[i] = T(0);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t s = 0; s < nsub; ++s) {
      const Subproblem& sp = pts.subproblems[s];
      switch (shape.dim) {
        case 1: spread_box<1, W>(sp, pts, ker, c, nvec, box_reals, box, cs); break;
        case 2: spread_box<2, W>(sp, pts, ker, c, nvec, box_reals, box, cs); break;
        default: spread_box<3, W>(sp, pts, ker, c, nvec, box_reals, box, cs); break;
      }
      if (locks) {
        add_box(sp, box, box_reals, nvec, shape, grid, locks);
      } else {
#pragma omp critical(nufftmp_cpu_add_box)
        add_box(sp, box, box_reals, nvec, shape, grid, nullptr);
      }
    }
  }
}

}  // namespace

template <typename T>
void spread_boxes(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,
                  const GridShape<T>& shape, const std::complex<T>* c, int nvec, T* grid,
                  std::int64_t box_reals, int nthreads, std::vector<std::vector<T>>& scratch) {
  with_width(ker.w, [&](auto width) {
    spread_width<decltype(width)::value>(pts, ker, shape, c, nvec, grid, box_reals, nthreads,
                                         scratch);
  });
}

template void spread_boxes<float>(const SortedPoints<float>&, const KernelEvaluator<float>&,
                                  const GridShape<float>&, const std::complex<float>*, int,
                                  float*, std::int64_t, int, std::vector<std::vector<float>>&);
template void spread_boxes<double>(const SortedPoints<double>&, const KernelEvaluator<double>&,
                                   const GridShape<double>&, const std::complex<double>*, int,
                                   double*, std::int64_t, int, std::vector<std::vector<double>>&);

}  // namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA
