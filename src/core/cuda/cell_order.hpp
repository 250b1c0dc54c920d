// Type 2's points ordered by cell inside each subproblem (set_points, after the bin sort).
//
// The thread-per-point gathers (interp_sm.cu) read a stencil row of the shared tile per step,
// every lane at its own first cell: lanes whose first cells differ but share a bank wait for
// each other (about 3.5 of 16 lanes on one bank for points in random order, PERFORMANCE.md).
// The sort by bin leaves a bin's points in no order, so on crowded bins (clustered points,
// thousands per tile) every step pays that. Ordered by first cell (x fastest, as the tile is
// laid out), the lanes of a warp read either the same cell (a broadcast) or cells side by
// side along a row (distinct banks): no conflict, and no dealing (interp_dealt.cu) either.
//
// One block per subproblem stages its records in shared memory, sorts (cell, position) pairs by
// cell with CUB's block radix sort (stable: a cell's points keep their order), and writes the
// records back in that order in place. Only the order inside a subproblem changes: the subproblem
// list, the bins and each record's bits stay as they are, so every execute kernel reads the
// same points; only which lane reads which one changes.
#pragma once

#include <cstdint>

#include "cuda/device_views.hpp"

// cudaStream_t without the CUDA headers: the host-only heuristics (and their CI test, built
// without the CUDA include path) read this header's rule.
struct CUstream_st;

namespace nufftmp::detail {

// The largest subproblem the block sort takes (256 threads x 16 keys).
constexpr int kCellOrderMaxSub = 4096;

// NUFFTMP_CUDA_CELL_ORDER: auto (set_points' refinement decides, heuristics.hpp), on (every
// type 2 SM set_points in the records layout orders its points, whatever the variant: A/B
// runs and tests), off (never).
enum class CellOrderMode { Auto, On, Off };
CellOrderMode cell_order_from_env();

// Whether subproblems of at most `maxsub` points and the tiles of `bins` fit the block sort
// (maxsub <= kCellOrderMaxSub, and a tile's cell index in 16 bits).
bool cell_order_fits(int dim, int w, const BinView& bins, int maxsub);

// Orders the points of each of the n subproblems in place (records layout: `records`, the
// sorted records of set_points; nf and w the grid and width they were sorted with). Every
// subproblem must hold at most maxsub points, and cell_order_fits(dim, w, bins, maxsub).
template <typename T>
void order_cells(int dim, unsigned* records, const Subproblem* subs, std::int64_t n,
                 const BinView& bins, const std::int32_t* nf, int w, int maxsub,
                 CUstream_st* stream);
// Loads its kernel for (T, dim) (a plan that may order loads it when it is made).
template <typename T>
void load_cell_order_kernel(int dim, int w, const BinView& bins, int maxsub);

}  // namespace nufftmp::detail
