// The CUDA engine's method and launch-parameter choice: pure host logic, so it runs on any
// machine (no device needed), against a made-up device description.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "common/plan_config.hpp"
#include "cuda/cell_order.hpp"
#include "cuda/fft_pruning.hpp"
#include "cuda/heuristics.hpp"
#include "fake_device.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail {
namespace {

template <typename T>
MethodChoice choose(int type, std::vector<std::int64_t> modes, double tol, Options o = {},
                    DeviceProps p = h200_like()) {
  const PlanConfig cfg = make_plan_config<T>(type, modes, 1, 1, tol, o);
  return choose_method<T>(cfg, p);
}

TEST(CudaHeuristics, AutoPicksMeasuredWinners) {
  EXPECT_EQ(choose<float>(1, {128, 128, 128}, 1e-5).method, Method::Output);
  EXPECT_EQ(choose<float>(1, {2048, 2048}, 1e-5).method, Method::Output);
  EXPECT_EQ(choose<float>(1, {100000}, 1e-5).method, Method::SM);
  EXPECT_EQ(choose<float>(2, {100000}, 1e-5).method, Method::GM);
  EXPECT_EQ(choose<float>(2, {128, 128, 128}, 1e-5).method, Method::SM);
  EXPECT_EQ(choose<double>(2, {64, 64, 64}, 1e-9).method, Method::SM);
  EXPECT_EQ(choose<double>(2, {1024, 1024}, 1e-9).method, Method::SM);
  Options o;
  o.method = Method::Output;  // no output-driven interpolator: the best one instead
  EXPECT_EQ(choose<float>(2, {64, 64}, 1e-5, o).method, Method::SM);
  o.method = Method::Auto;
  o.sort = false;
  EXPECT_EQ(choose<float>(1, {64, 64}, 1e-5, o).method, Method::GM);
}

TEST(CudaHeuristics, ExplicitMethodIsKept) {
  for (Method m : {Method::GM, Method::GMSort, Method::SM, Method::Output}) {
    Options o;
    o.method = m;
    EXPECT_EQ(choose<double>(1, {40, 30, 20}, 1e-6, o).method, m);
  }
}

TEST(CudaHeuristics, TilesFitAndBinsAreClamped) {
  const auto c = choose<double>(1, {64, 64, 64}, 1e-9);
  // Double output-driven in 3D: 4-wide bins for the register-row kernel, 4 x 4 x 8 measured best.
  EXPECT_EQ(c.method, Method::Output);
  EXPECT_EQ(c.bins.size[0], 4);
  EXPECT_EQ(c.bins.size[1], 4);
  EXPECT_EQ(c.bins.size[2], 8);
  EXPECT_LE(c.shared_bytes, h200_like().smem_optin);
  EXPECT_GT(c.maxsub, 0);
  Options o;
  o.binsize[0] = 4096;  // larger than the fine grid: clamped to it
  const auto d = choose<float>(1, {100}, 1e-5, o);
  EXPECT_EQ(d.bins.size[0], 200);
  EXPECT_EQ(d.bins.count[0], 1);
  EXPECT_EQ(d.bins.total, 1);
}

// The 3D defaults measured on the H200 (heuristics.cpp): float output-driven tiles from w 7 in
// 4 x 4 x 8 bins and subproblems of kFineFixedTileSub points (the fixed point's rounding), 8^3
// and 1024 below; type 2's dealt gather in 16 x 8 x 8 bins while that tile is small.
TEST(CudaHeuristics, ThreeDimensionalBinsByWidth) {
  for (double tol : {1e-3, 1e-5, 1e-6}) {
    const PlanConfig cfg = make_plan_config<float>(1, {96, 96, 96}, 1, 1, tol, Options{});
    const auto c = choose_method<float>(cfg, h200_like());
    ASSERT_EQ(c.variant, KernelVariant::Tile) << tol;
    const bool fine = cfg.kernel.w >= kFineFixedTileW;
    EXPECT_EQ(c.bins.size[0], fine ? 4 : 8) << "w " << cfg.kernel.w;
    EXPECT_EQ(c.bins.size[1], fine ? 4 : 8);
    EXPECT_EQ(c.bins.size[2], 8);
    EXPECT_EQ(c.maxsub, fine ? kFineFixedTileSub : 1024);
  }
  for (double tol : {1e-6, 1e-9, 1e-12}) {
    const PlanConfig cfg = make_plan_config<double>(2, {96, 96, 96}, 1, 1, tol, Options{});
    const auto c = choose_method<double>(cfg, h200_like());
    ASSERT_EQ(c.variant, KernelVariant::Dealt);
    const int w = cfg.kernel.w;
    BinView b{};
    b.size[0] = 16;
    b.size[1] = b.size[2] = 8;
    const bool wide = 16 * static_cast<std::size_t>(make_tile(3, w, b).cells) <= kWideTile3dBytes;
    EXPECT_EQ(c.bins.size[0], wide ? 16 : 8) << "w " << w;
    EXPECT_EQ(c.bins.size[1], 8);
  }
  Options own;
  own.maxsubprobsize = 2000;  // the user's subproblem size is kept
  EXPECT_EQ(choose<float>(1, {96, 96, 96}, 1e-6, own).maxsub, 2000);
}

TEST(CudaHeuristics, UserOverridesAreHonoured) {
  Options o;
  o.method = Method::Output;
  o.binsize[0] = 16;
  o.binsize[1] = 8;
  o.maxsubprobsize = 300;
  o.points_per_block = 40;
  const auto c = choose<float>(1, {256, 256}, 1e-5, o);
  EXPECT_EQ(c.bins.size[0], 16);
  EXPECT_EQ(c.bins.size[1], 8);
  EXPECT_EQ(c.bins.count[0], 32);  // fine grid 512
  EXPECT_EQ(c.maxsub, 300);
  EXPECT_EQ(c.np, 40);
}

// The tuning knob for threads per block is clamped to [32, 256] and rounded up to whole warps
// (the lane-group gather shuffles with a full-warp mask).
TEST(CudaHeuristics, ThreadsAreWholeWarps) {
  ::setenv("NUFFTMP_CUDA_THREADS", "100", 1);
  const auto a = choose<double>(2, {64, 64, 64}, 1e-9);
  ::setenv("NUFFTMP_CUDA_THREADS", "1000", 1);
  const auto b = choose<float>(1, {64, 64}, 1e-5);
  ::unsetenv("NUFFTMP_CUDA_THREADS");
  EXPECT_EQ(a.method, Method::SM);
  EXPECT_EQ(a.threads, 128);
  EXPECT_EQ(b.threads, 256);
  EXPECT_EQ(choose<float>(1, {64, 64}, 1e-5).threads, 256);
}

// Each tiled method runs its measured default kernel; NUFFTMP_CUDA_VARIANT names others (the
// first name that is a kernel of the plan's method), and a variant the bins do not allow falls
// back to the method's other kernel.
TEST(CudaHeuristics, KernelVariants) {
  EXPECT_EQ(choose<double>(1, {64, 64, 64}, 1e-9).variant, KernelVariant::Rows);
  EXPECT_EQ(choose<float>(1, {128, 128, 128}, 1e-5).variant, KernelVariant::Tile);
  EXPECT_EQ(choose<float>(2, {128, 128, 128}, 1e-5).variant, KernelVariant::Dealt);
  EXPECT_EQ(choose<double>(2, {64, 64, 64}, 1e-9).variant, KernelVariant::Dealt);
  EXPECT_EQ(choose<double>(2, {1024, 1024}, 1e-9).variant, KernelVariant::Dealt);
  EXPECT_EQ(choose<float>(1, {100000}, 1e-5).variant, KernelVariant::Auto);  // type 1 SM
  EXPECT_EQ(choose<float>(2, {100000}, 1e-5).variant, KernelVariant::Auto);  // 1D: GM
  Options sm1;
  sm1.method = Method::SM;  // 1D SM keeps the per-thread gathers
  EXPECT_EQ(choose<float>(2, {100000}, 1e-5, sm1).variant, KernelVariant::Thread);
  EXPECT_EQ(choose<double>(2, {100000}, 1e-9, sm1).variant, KernelVariant::Group);
  // Double 2D type 1: the 64-bit fixed-point tile at every width (rows and tile when named).
  EXPECT_EQ(choose<double>(1, {1024, 1024}, 1e-12).variant, KernelVariant::Fixed);  // w 13
  EXPECT_EQ(choose<double>(1, {1024, 1024}, 1e-6).variant, KernelVariant::Fixed);   // w 7
  EXPECT_EQ(choose<double>(1, {100000}, 1e-9, [] {
              Options o;
              o.method = Method::Output;
              return o;
            }()).variant, KernelVariant::Tile);  // 1D double: the double tile

  ::setenv("NUFFTMP_CUDA_VARIANT", "dealt,sweep", 1);
  const auto s1 = choose<double>(1, {1024, 1024}, 1e-6);  // w = 7: halo 4 per side
  EXPECT_EQ(s1.method, Method::Output);
  EXPECT_EQ(s1.variant, KernelVariant::Sweep);
  EXPECT_EQ(s1.bins.size[0], 256 - 8);  // eight 32-column strips
  EXPECT_EQ(s1.bins.size[1], 14);
  EXPECT_EQ(s1.threads, 256);
  EXPECT_EQ(s1.maxsub, 4096);
  Options sm;
  sm.method = Method::SM;
  const auto s2 = choose<float>(2, {1024, 1024}, 1e-5, sm);
  EXPECT_EQ(s2.variant, KernelVariant::Dealt);
  EXPECT_EQ(choose<double>(1, {64, 64, 64}, 1e-9).variant, KernelVariant::Rows);  // no 3D sweep

  ::setenv("NUFFTMP_CUDA_VARIANT", "rows", 1);  // 2D register rows: a thread per tile row
  const auto r2 = choose<double>(1, {1024, 1024}, 1e-12);  // w = 13: halo 7 per side
  EXPECT_EQ(r2.variant, KernelVariant::Rows);
  EXPECT_EQ(r2.bins.size[0], 4);
  EXPECT_EQ(r2.bins.size[1], 256 - 14);
  EXPECT_EQ(r2.maxsub, 4096);
  EXPECT_EQ(choose<float>(1, {1024, 1024}, 1e-5).variant, KernelVariant::Tile);  // double only

  ::setenv("NUFFTMP_CUDA_VARIANT", "sweep", 1);
  const auto s3 = choose<float>(2, {1024, 1024}, 1e-5, sm);
  EXPECT_EQ(s3.variant, KernelVariant::Sweep);
  EXPECT_EQ(s3.bins.size[1], 3);
  EXPECT_EQ(s3.maxsub, 1024);
  Options wide;
  wide.binsize[0] = 300;  // 300 + 6 columns: ten strips, more than a block's eight warps
  wide.binsize[1] = 8;
  const auto s4 = choose<float>(1, {1024, 1024}, 1e-5, wide);
  EXPECT_EQ(s4.variant, KernelVariant::Tile);
  EXPECT_EQ(s4.bins.size[0], 300);
  ::unsetenv("NUFFTMP_CUDA_VARIANT");

  Options cubes;
  cubes.binsize[0] = cubes.binsize[1] = cubes.binsize[2] = 8;  // register rows need x = 4
  EXPECT_EQ(choose<double>(1, {64, 64, 64}, 1e-9, cubes).variant, KernelVariant::Tile);
}

// The 64-bit fixed-point tile: a kernel of double output-driven spreading in 1D-3D, the default
// in 2D (measured), chosen when named in 1D and 3D.
TEST(CudaHeuristics, FixedPointVariant) {
  ::setenv("NUFFTMP_CUDA_VARIANT", "fixed", 1);
  const auto d2 = choose<double>(1, {1024, 1024}, 1e-6);
  const auto d1 = choose<double>(1, {100000}, 1e-9, [] {
    Options o;
    o.method = Method::Output;
    return o;
  }());
  const auto d3 = choose<double>(1, {64, 64, 64}, 1e-9);
  const auto f2 = choose<float>(1, {1024, 1024}, 1e-5);  // float: its own fixed point (tile)
  ::unsetenv("NUFFTMP_CUDA_VARIANT");
  EXPECT_EQ(d2.variant, KernelVariant::Fixed);
  EXPECT_EQ(d2.bins.size[0], 16);  // measured: 16^2 beat 32^2 and larger (heuristics.cpp)
  EXPECT_EQ(d2.bins.size[1], 16);
  EXPECT_EQ(d1.variant, KernelVariant::Fixed);
  EXPECT_EQ(d3.variant, KernelVariant::Fixed);
  EXPECT_EQ(d3.bins.size[0], 8);  // the tile's cubes, not the register rows' 4-wide bins
  EXPECT_EQ(f2.variant, KernelVariant::Tile);
  EXPECT_LE(d3.shared_bytes, h200_like().smem_optin);
  EXPECT_STREQ(variant_name(KernelVariant::Fixed), "fixed");
  EXPECT_FALSE(variant_fits(KernelVariant::Fixed, 2, Method::SM, 2, 8));
  EXPECT_FALSE(variant_fits(KernelVariant::Fixed, 1, Method::Output, 2, 4));
  EXPECT_EQ(choose<double>(1, {1024, 1024}, 1e-6).variant, KernelVariant::Fixed);  // default
}

template <typename T>
std::optional<MethodChoice> alternative(int type, std::vector<std::int64_t> modes, double tol,
                                        Options o = {}) {
  const PlanConfig cfg = make_plan_config<T>(type, modes, 1, 1, tol, o);
  return refine_alternative<T>(cfg, h200_like(), choose_method<T>(cfg, h200_like()));
}

// Type 2 in 3D (the dealt gather): the alternative is the thread gather over points in cell
// order, with the plan's sort (bins, maxsub); none where the block sort cannot take the
// subproblems (maxsub > 4096), where the user named a variant, or with the order turned off.
// In 2D (cell order measured slower there) float's is the dealt gather in 16^2 bins, a second
// sort; none where bins were set (Options or NUFFTMP_CUDA_BINSIZE), none in double (not
// measured faster).
TEST(CudaHeuristics, CellOrderAlternativeForType2) {
  const auto a2 = alternative<float>(2, {2048, 2048}, 1e-5);  // P4's shape
  const auto p2 = choose<float>(2, {2048, 2048}, 1e-5);
  ASSERT_TRUE(a2.has_value());
  EXPECT_EQ(p2.variant, KernelVariant::Dealt);
  EXPECT_EQ(p2.bins.size[0], 32);
  EXPECT_FALSE(p2.resort);
  EXPECT_EQ(a2->method, Method::SM);
  EXPECT_EQ(a2->variant, KernelVariant::Dealt);
  EXPECT_FALSE(a2->cell_order);
  EXPECT_TRUE(a2->resort);
  EXPECT_EQ(a2->bins.size[0], kCrowdedType2Bin2d);
  EXPECT_EQ(a2->bins.size[1], kCrowdedType2Bin2d);
  EXPECT_EQ(a2->maxsub, p2.maxsub);
  EXPECT_LT(a2->shared_bytes, p2.shared_bytes);
  EXPECT_FALSE(alternative<double>(2, {1024, 1024}, 1e-12).has_value());
  Options own_bins;
  own_bins.binsize[0] = own_bins.binsize[1] = 32;
  EXPECT_FALSE(alternative<float>(2, {2048, 2048}, 1e-5, own_bins).has_value());
  own_bins.binsize[0] = own_bins.binsize[1] = 16;
  EXPECT_FALSE(alternative<float>(2, {2048, 2048}, 1e-5, own_bins).has_value());
  ::setenv("NUFFTMP_CUDA_BINSIZE", "32,32", 1);
  EXPECT_FALSE(alternative<float>(2, {2048, 2048}, 1e-5).has_value());
  ::unsetenv("NUFFTMP_CUDA_BINSIZE");
  Options own_sub;
  own_sub.maxsubprobsize = 1000;  // both honour it
  const auto a2s = alternative<float>(2, {2048, 2048}, 1e-5, own_sub);
  ASSERT_TRUE(a2s.has_value());
  EXPECT_EQ(a2s->maxsub, 1000);
  for (const auto& modes : {std::vector<std::int64_t>{128, 128, 128}, {96, 96, 96}}) {
    for (bool dbl : {false, true}) {
      const auto a = dbl ? alternative<double>(2, modes, 1e-9) : alternative<float>(2, modes, 1e-5);
      const auto plan = dbl ? choose<double>(2, modes, 1e-9) : choose<float>(2, modes, 1e-5);
      ASSERT_TRUE(a.has_value()) << modes.size() << "D";
      EXPECT_EQ(plan.variant, KernelVariant::Dealt);
      EXPECT_FALSE(plan.cell_order);
      // The plan's bins: float 16 x 8 x 8, double at w 10 8^3 (measured, heuristics.cpp).
      EXPECT_EQ(plan.bins.size[0], dbl ? 8 : 16);
      EXPECT_EQ(plan.bins.size[1], 8);
      EXPECT_EQ(plan.bins.size[2], 8);
      EXPECT_EQ(a->method, Method::SM);
      EXPECT_EQ(a->variant, KernelVariant::Thread);
      EXPECT_TRUE(a->cell_order);
      EXPECT_TRUE(a->resort);  // crowded points into finer bins: a second sort
      EXPECT_EQ(a->maxsub, plan.maxsub);
      const int* fine = dbl ? kCrowdedType2Bins3dDouble : kCrowdedType2Bins3dFloat;
      for (int d = 0; d < 3; ++d) EXPECT_EQ(a->bins.size[d], fine[d]);
      EXPECT_LT(std::int64_t(a->bins.size[0]) * a->bins.size[1] * a->bins.size[2],
                std::int64_t(plan.bins.size[0]) * plan.bins.size[1] * plan.bins.size[2]);
      EXPECT_NE(describe_choice(*a, 3).find("points in cell order"), std::string::npos);
      // Bins the user set are kept: the same sort, no resort.
      Options own;
      own.binsize[0] = own.binsize[1] = own.binsize[2] = 8;
      const auto k = dbl ? alternative<double>(2, modes, 1e-9, own)
                         : alternative<float>(2, modes, 1e-5, own);
      ASSERT_TRUE(k.has_value());
      EXPECT_TRUE(k->cell_order);
      EXPECT_FALSE(k->resort);
      for (int d = 0; d < 3; ++d) EXPECT_EQ(k->bins.size[d], 8);
    }
  }
  ::setenv("NUFFTMP_CUDA_BINSIZE", "8,8,8", 1);  // read as the user's bins
  const auto e3 = alternative<float>(2, {128, 128, 128}, 1e-5);
  ::unsetenv("NUFFTMP_CUDA_BINSIZE");
  ASSERT_TRUE(e3.has_value());
  EXPECT_FALSE(e3->resort);
  EXPECT_EQ(e3->bins.size[0], 8);
  Options big;
  big.maxsubprobsize = 8192;
  EXPECT_FALSE(alternative<float>(2, {128, 128, 128}, 1e-5, big).has_value());
  Options small;
  small.maxsubprobsize = 100;
  EXPECT_TRUE(alternative<float>(2, {128, 128, 128}, 1e-5, small).has_value());
  ::setenv("NUFFTMP_CUDA_CELL_ORDER", "off", 1);
  EXPECT_FALSE(alternative<float>(2, {128, 128, 128}, 1e-5).has_value());
  ::setenv("NUFFTMP_CUDA_CELL_ORDER", "sometimes", 1);
  EXPECT_THROW(alternative<float>(2, {128, 128, 128}, 1e-5), nufftmp::Error);
  ::unsetenv("NUFFTMP_CUDA_CELL_ORDER");
  ::setenv("NUFFTMP_CUDA_VARIANT", "dealt", 1);
  EXPECT_FALSE(alternative<float>(2, {128, 128, 128}, 1e-5).has_value());
  ::unsetenv("NUFFTMP_CUDA_VARIANT");

  BinView b = make_bins(2, {4096, 4096, 1}, std::array<int, 3>{32, 32, 1}.data());
  EXPECT_TRUE(cell_order_fits(2, 6, b, 4096));
  EXPECT_FALSE(cell_order_fits(2, 6, b, 4097));
  EXPECT_FALSE(cell_order_fits(2, 6, b, 0));
  b = make_bins(3, {4096, 4096, 4096}, std::array<int, 3>{200, 200, 200}.data());
  EXPECT_FALSE(cell_order_fits(3, 6, b, 4096));  // a tile of 206^3 cells: 24 bits + 12
}

// set_points' refinement: which plans have an alternative (1D float type 1 with the method left
// to the library), that it sorts as the plan does, and the rule on the bin statistics.
TEST(CudaHeuristics, RefinementAtSetPoints) {
  const auto a = alternative<float>(1, {10000000}, 1e-5);  // P7's shape
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->method, Method::Output);
  EXPECT_EQ(a->variant, KernelVariant::Tile);
  const auto plan = choose<float>(1, {10000000}, 1e-5);
  EXPECT_EQ(plan.method, Method::SM);
  EXPECT_EQ(a->bins.size[0], plan.bins.size[0]);  // the same sort
  EXPECT_EQ(a->maxsub, plan.maxsub);

  Options forced;
  forced.method = Method::SM;  // the user's method is kept
  EXPECT_FALSE(alternative<float>(1, {100000}, 1e-5, forced).has_value());
  Options tuned;
  tuned.autotune = true;  // autotune decides by timing
  EXPECT_FALSE(alternative<float>(1, {100000}, 1e-5, tuned).has_value());
  Options own_sub;
  own_sub.maxsubprobsize = 512;  // both honour it: still the same sort
  EXPECT_TRUE(alternative<float>(1, {100000}, 1e-5, own_sub).has_value());
  EXPECT_FALSE(alternative<double>(1, {100000}, 1e-9).has_value());  // not measured
  EXPECT_FALSE(alternative<float>(2, {100000}, 1e-5).has_value());   // type 2 1D: GM, no sort
  EXPECT_FALSE(alternative<float>(1, {2048, 2048}, 1e-5).has_value());
  ::setenv("NUFFTMP_CUDA_REFINE", "0", 1);
  EXPECT_FALSE(alternative<float>(1, {100000}, 1e-5).has_value());
  ::setenv("NUFFTMP_CUDA_VARIANT", "sweep", 1);
  ::unsetenv("NUFFTMP_CUDA_REFINE");
  EXPECT_FALSE(alternative<float>(1, {100000}, 1e-5).has_value());  // a variant was named
  ::unsetenv("NUFFTMP_CUDA_VARIANT");

  // Crowded: 8 x the larger of the bin's cells and the mean count.
  BinView b = plan.bins;  // 1024-cell bins
  EXPECT_EQ(crowded_bin_count(b, 1000), kCrowdFactor * 1024);
  EXPECT_EQ(crowded_bin_count(b, 100 * 1024 * b.total), kCrowdFactor * 100 * 1024);

  // P7 (uniform: every bin about its mean) keeps SM; Q7 (all points in one bin) switches.
  const std::int64_t M = 20000000;
  BinStats uniform{M, b.total, b.total, 1200, 0};
  BinStats clustered{M, b.total, 1, M, M};
  EXPECT_FALSE(prefer_crowded_alternative(uniform));
  EXPECT_TRUE(prefer_crowded_alternative(clustered));
  BinStats some{M, b.total, b.total, M / 5, M / 5};  // a fifth of the points in a crowded bin
  EXPECT_FALSE(prefer_crowded_alternative(some));
  some.crowded = M / 2;
  EXPECT_TRUE(prefer_crowded_alternative(some));
  EXPECT_FALSE(prefer_crowded_alternative(BinStats{}));  // no points
}

// A device with almost no shared memory: the tiled methods fall back to GM-sort and say why.
TEST(CudaHeuristics, FallsBackWhenTileCannotFit) {
  DeviceProps tiny = h200_like();
  tiny.smem_optin = 1024;
  Options o;
  o.method = Method::SM;
  const auto c = choose<double>(1, {64, 64, 64}, 1e-12, o, tiny);
  EXPECT_EQ(c.method, Method::GMSort);
  EXPECT_NE(c.note.find("shared memory"), std::string::npos) << c.note;
}

// The pruned FFT (fft_pruning.hpp): 2D only, never with overlapping column runs, by default
// on large grids whose modes leave at least a fifth of the columns; the environment forces it
// wherever it applies, or forces the whole transform.
TEST(CudaHeuristics, PrunedFftWhereItApplies) {
  using A = std::array<std::int64_t, 3>;
  EXPECT_EQ(pruned_column_run(2048), 1024);
  EXPECT_EQ(pruned_column_run(33), 17);  // modes -16..16: 17 at x >= 0, 16 below
  EXPECT_EQ(default_fft_pruning(2, A{4096, 4096, 1}, A{2048, 2048, 1}), FftPruning::Columns);
  EXPECT_EQ(default_fft_pruning(2, A{2048, 2048, 1}, A{1024, 1024, 1}), FftPruning::Columns);
  EXPECT_EQ(default_fft_pruning(2, A{2560, 2560, 1}, A{2048, 2048, 1}), FftPruning::Columns);
  EXPECT_EQ(default_fft_pruning(2, A{512, 512, 1}, A{256, 256, 1}), FftPruning::Whole);  // small
  EXPECT_EQ(default_fft_pruning(2, A{2048, 2048, 1}, A{1800, 1024, 1}), FftPruning::Whole);
  EXPECT_EQ(default_fft_pruning(3, A{256, 256, 256}, A{128, 128, 128}), FftPruning::Whole);
  EXPECT_EQ(default_fft_pruning(1, A{1 << 22, 1, 1}, A{1 << 21, 1, 1}), FftPruning::Whole);
  EXPECT_FALSE(fft_pruning_applies(2, A{41, 40, 1}, A{41, 20, 1}));  // runs of 21 + 21 > 41
  EXPECT_TRUE(fft_pruning_applies(2, A{40, 40, 1}, A{38, 20, 1}));
  EXPECT_EQ(fft_pruning_from_env("pruned", 2, A{80, 66, 1}, A{40, 33, 1}), FftPruning::Columns);
  EXPECT_EQ(fft_pruning_from_env("pruned", 3, A{36, 26, 32}, A{18, 13, 16}), FftPruning::Whole);
  EXPECT_EQ(fft_pruning_from_env("whole", 2, A{4096, 4096, 1}, A{2048, 2048, 1}),
            FftPruning::Whole);
  EXPECT_EQ(fft_pruning_from_env(nullptr, 2, A{4096, 4096, 1}, A{2048, 2048, 1}),
            FftPruning::Columns);
}

}  // namespace
}  // namespace nufftmp::detail
