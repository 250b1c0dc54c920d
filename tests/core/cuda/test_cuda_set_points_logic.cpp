// Host-only logic of the CUDA engine's set_points: the 32/64-bit choice of the sort's indices,
// the subproblem-list bound it sizes its buffer with, the sort's variants (scatter, counting,
// the block-counting geometry, packed record sizes) and the memory pool's release threshold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuda/index_width.hpp"
#include "cuda/pool_policy.hpp"
#include "cuda/sort_strategy.hpp"

namespace nufftmp::detail {
namespace {

TEST(SortIndexWidth, ThirtyTwoBitsBelowTwoToThe31) {
  const std::int64_t two31 = std::int64_t(1) << 31;
  EXPECT_FALSE(sort_needs_index64(0, 1, 0, false));
  EXPECT_FALSE(sort_needs_index64(16777216, 32768, 1024, false));  // P1
  EXPECT_FALSE(sort_needs_index64(two31 - 2, 32768, 0, false));
  EXPECT_TRUE(sort_needs_index64(two31, 32768, 0, false));
  EXPECT_FALSE(sort_needs_index64(two31 - 1, 32768, 0, false));  // offsets reach M: fits
  EXPECT_TRUE(sort_needs_index64(5, two31, 0, false));          // bin offsets index nbins + 1
  // Subproblem offsets reach M / maxsub + min(nbins, M): with maxsub 1 that is ~2M.
  EXPECT_FALSE(sort_needs_index64(two31 / 4, two31 / 4, 1, false));
  EXPECT_TRUE(sort_needs_index64(two31 / 2 + 10, two31 / 2, 1, false));
  EXPECT_TRUE(sort_needs_index64(100, 10, 64, true));  // forced (tests of the wide path)
}

// The bound is >= the true count for any fill of the bins, and tight for one full bin.
TEST(SortIndexWidth, SubproblemCapacityBoundsEveryFill) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t nbins = 1 + rng() % 300;
    const std::int64_t M = rng() % 5000;
    const int maxsub = 1 + static_cast<int>(rng() % 100);
    std::vector<std::int64_t> n(static_cast<size_t>(nbins), 0);
    const bool crowded = trial % 3 == 0;
    for (std::int64_t j = 0; j < M; ++j)
      ++n[static_cast<size_t>(crowded ? (rng() % 3) : (rng() % nbins))];
    std::int64_t count = 0;
    for (std::int64_t v : n) count += (v + maxsub - 1) / maxsub;
    EXPECT_GE(subproblem_capacity(M, nbins, maxsub), count)
        << "M " << M << " nbins " << nbins << " maxsub " << maxsub;
  }
  EXPECT_EQ(subproblem_capacity(1000, 50, 0), 0);
  EXPECT_GE(subproblem_capacity(0, 50, 64), 1);  // never an empty list buffer
}

TEST(SortStrategy, VariantsFromTheEnvironment) {
  for (int dim = 1; dim <= 3; ++dim)
    for (std::size_t bytes : {std::size_t(4), std::size_t(8)}) {
      EXPECT_EQ(scatter_from_env(nullptr, dim, bytes), default_scatter(dim, bytes));
      EXPECT_EQ(scatter_from_env("", dim, bytes), default_scatter(dim, bytes));
    }
  // The measured defaults: bucket in 2D, packed in 1D and 3D (sort_strategy.hpp).
  EXPECT_EQ(default_scatter(2, 4), ScatterKind::Bucket);
  EXPECT_EQ(default_scatter(2, 8), ScatterKind::Bucket);
  EXPECT_EQ(default_scatter(1, 4), ScatterKind::Bucket);  // float 1D/3D: bucket (measured)
  EXPECT_EQ(default_scatter(3, 4), ScatterKind::Bucket);
  EXPECT_EQ(default_scatter(1, 8), ScatterKind::Packed);  // double 1D/3D: packed
  EXPECT_EQ(default_scatter(3, 8), ScatterKind::Packed);
  EXPECT_EQ(scatter_from_env("gather", 3, 4), ScatterKind::Gather);
  EXPECT_EQ(scatter_from_env("direct", 2, 8), ScatterKind::Direct);
  EXPECT_EQ(scatter_from_env("packed", 1, 4), ScatterKind::Packed);
  EXPECT_EQ(scatter_from_env("bucket", 3, 8), ScatterKind::Bucket);
  EXPECT_EQ(count_from_env(nullptr), CountKind::Auto);
  EXPECT_EQ(count_from_env(""), CountKind::Auto);
  EXPECT_EQ(count_from_env("auto"), CountKind::Auto);
  EXPECT_EQ(count_from_env("global"), CountKind::Global);
  EXPECT_EQ(count_from_env("block"), CountKind::Block);
  // A typo must not silently measure the default: an error naming the variable and value.
  for (const char* bad : {"Packed", "pack", "gather ", "1"}) {
    try {
      scatter_from_env(bad, 3, 4);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("NUFFTMP_CUDA_SCATTER"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos);
    }
  }
  EXPECT_THROW(count_from_env("blocks"), Error);
}

TEST(SortStrategy, PointLayoutFromTheEnvironment) {
  // Unset or empty: the plan's default, whichever it is.
  for (PointLayout d : {PointLayout::Split, PointLayout::Records}) {
    EXPECT_EQ(point_layout_from_env(nullptr, d), d);
    EXPECT_EQ(point_layout_from_env("", d), d);
    EXPECT_EQ(point_layout_from_env("split", d), PointLayout::Split);
    EXPECT_EQ(point_layout_from_env("records", d), PointLayout::Records);
  }
  for (const char* bad : {"record", "Records", "records ", "packed", "1", "auto"}) {
    try {
      point_layout_from_env(bad, PointLayout::Records);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("NUFFTMP_CUDA_POINTS"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
  // Records only from the scatters that make records, with 32-bit indices.
  for (ScatterKind k : {ScatterKind::Packed, ScatterKind::Bucket}) {
    EXPECT_EQ(sorted_layout(PointLayout::Records, k, false), PointLayout::Records);
    EXPECT_EQ(sorted_layout(PointLayout::Records, k, true), PointLayout::Split);
    EXPECT_EQ(sorted_layout(PointLayout::Split, k, false), PointLayout::Split);
  }
  for (ScatterKind k : {ScatterKind::Gather, ScatterKind::Direct})
    EXPECT_EQ(sorted_layout(PointLayout::Records, k, false), PointLayout::Split);
}

TEST(SortStrategy, DefaultPointLayout) {
  // Records in every class (1D-3D, float and double, both types): double 3D type 1 too, since
  // its records carry the folded position and its w 7-8 spreader fits three blocks an SM.
  for (int dim : {1, 2, 3})
    for (int type : {1, 2})
      for (std::size_t bytes : {std::size_t(4), std::size_t(8)})
        EXPECT_EQ(default_point_layout(dim, bytes, type), PointLayout::Records)
            << dim << " " << type << " " << bytes;
}

TEST(SortStrategy, BucketKnobFromTheEnvironment) {
  EXPECT_EQ(bucket_knob_from_env(nullptr).bins_per_bucket, 0);
  EXPECT_EQ(bucket_knob_from_env("").item_points, 0);
  const BucketKnob k = bucket_knob_from_env("3,500");
  EXPECT_EQ(k.bins_per_bucket, 3);
  EXPECT_EQ(k.item_points, 500);
  EXPECT_EQ(k.tile_points, 0);
  const BucketKnob t = bucket_knob_from_env("7,1,16");
  EXPECT_EQ(t.bins_per_bucket, 7);
  EXPECT_EQ(t.item_points, 1);
  EXPECT_EQ(t.tile_points, 16);
  EXPECT_EQ(bucket_knob_from_env("1,1,1").tile_points, 1);
  for (const char* bad : {"3", ",5", "3,", "0,5", "3,0", "513,5", "3,5x", "a,b", "3;5", "3,5,",
                          "3,5,0", "3,5,12", "3,5,16,2", "3,,16", "3,5,x"}) {
    try {
      bucket_knob_from_env(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("NUFFTMP_CUDA_BUCKET"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos);
    }
  }
}

TEST(SortStrategy, BucketKernelsFromTheEnvironment) {
  for (int dim : {1, 2, 3}) {  // unset or empty: the measured default of the dimension
    const BucketKernels d = bucket_kernels_from_env(nullptr, "", dim);
    EXPECT_EQ(d.pass2, default_bucket_kernels(dim).pass2);
    EXPECT_EQ(d.pass3, default_bucket_kernels(dim).pass3);
  }
  EXPECT_EQ(default_bucket_kernels(3).pass2, BucketPass2::Tile2k);
  EXPECT_EQ(default_bucket_kernels(3).pass3, BucketPass3::Piece4k);
  EXPECT_EQ(default_bucket_kernels(1).pass3, BucketPass3::Piece4k);
  EXPECT_EQ(default_bucket_kernels(2).pass3, BucketPass3::Piece2k);
  EXPECT_EQ(bucket_kernels_from_env("tile", nullptr, 3).pass2, BucketPass2::Tile);
  EXPECT_EQ(bucket_kernels_from_env("chunk", nullptr, 3).pass2, BucketPass2::Chunk);
  EXPECT_EQ(bucket_kernels_from_env("tile2k", nullptr, 2).pass2, BucketPass2::Tile2k);
  EXPECT_EQ(bucket_kernels_from_env("chunk", "piece4k", 2).pass3, BucketPass3::Piece4k);
  EXPECT_EQ(bucket_kernels_from_env("chunk", "piece2k", 3).pass3, BucketPass3::Piece2k);
  const struct {
    const char *p2, *p3, *variable, *value;
  } bad[] = {{"Tile", nullptr, "NUFFTMP_CUDA_BUCKET_P2", "Tile"},
             {"tile ", nullptr, "NUFFTMP_CUDA_BUCKET_P2", "tile "},
             {"2", nullptr, "NUFFTMP_CUDA_BUCKET_P2", "2"},
             {nullptr, "piece8k", "NUFFTMP_CUDA_BUCKET_P3", "piece8k"},
             {"tile", "4k", "NUFFTMP_CUDA_BUCKET_P3", "4k"}};
  for (const auto& b : bad) {
    try {
      bucket_kernels_from_env(b.p2, b.p3, 3);
      ADD_FAILURE() << b.value << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find(b.variable), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string("'") + b.value + "'"),
                std::string::npos)
          << e.what();
    }
  }
}

// Pass 2's tiles never straddle a chunk (they divide it), and the cursor has room beside the
// scanned table.
TEST(SortStrategy, BucketTilesDivideChunks) {
  for (int shift = 0; shift <= kMaxChunkShift; ++shift)
    for (int tile : {2048, 4096})
      for (std::int64_t cap : {std::int64_t(0), std::int64_t(1), std::int64_t(16),
                               std::int64_t(8192)}) {
        const std::int64_t t = bucket_tile_points(tile, shift, cap);
        const std::int64_t chunk = std::int64_t(1) << shift;
        EXPECT_GE(t, 1);
        EXPECT_LE(t, tile);
        EXPECT_EQ(chunk % t, 0) << shift << " " << tile << " " << cap;
        if (cap > 0) EXPECT_LE(t, cap);
        EXPECT_EQ(t, std::min<std::int64_t>({chunk, tile, cap > 0 ? cap : chunk}));
      }
  // The table (buckets x chunks + 1 entries, at most `entries`) and the cursor (buckets x
  // chunks) both fit; the chunk variant keeps no cursor.
  EXPECT_EQ(bucket_table_entries(1001, BucketPass2::Chunk), 1001);
  EXPECT_EQ(bucket_table_entries(1001, BucketPass2::Tile), 2002);
  EXPECT_EQ(bucket_table_entries(1001, BucketPass2::Tile2k), 2002);
}

// Buckets cover every bin exactly once, within the kernels' limits (one scan entry per thread
// in both passes); the public and sweep cases get about 256 buckets of <= 128 bins.
TEST(SortStrategy, BucketGeometry) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const std::int64_t nbins = 1 + static_cast<std::int64_t>(rng() % 70000);
    BucketKnob knob;
    if (trial % 2) knob.bins_per_bucket = 1 + static_cast<int>(rng() % kMaxBinsPerBucket);
    const BucketGeometry g = bucket_geometry(nbins, knob);
    ASSERT_GT(g.bins_per_bucket, 0) << nbins;
    EXPECT_LE(g.bins_per_bucket, kMaxBinsPerBucket);
    EXPECT_LE(g.buckets, kMaxBuckets) << nbins;
    EXPECT_GE(g.buckets * g.bins_per_bucket, nbins);
    EXPECT_LT((g.buckets - 1) * g.bins_per_bucket, nbins);  // no empty bucket
    EXPECT_EQ(g.item_points, kBucketItemPoints);
  }
  for (std::int64_t nbins : {32768, 16384, 19532, 13824, 4096}) {
    const BucketGeometry g = bucket_geometry(nbins, {});
    EXPECT_LE(g.bins_per_bucket, 128) << nbins;
    EXPECT_LE(g.buckets, 256) << nbins;
    EXPECT_GE(g.buckets, 128) << nbins;
  }
  EXPECT_EQ(bucket_geometry(0, {}).buckets, 0);
  EXPECT_EQ(bucket_geometry(kMaxBuckets * kMaxBinsPerBucket + 1, {}).buckets, 0);
  EXPECT_EQ(bucket_geometry(100, {3, 1}).item_points, 1);
}

// Pass 3's items: each closed item holds >= item_points points, plus one short one per bucket;
// the bound holds for any fill of (bucket, chunk) segments, and grows with M.
TEST(SortStrategy, BucketItemCapacityBoundsEveryFill) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 300; ++trial) {
    const std::int64_t buckets = 1 + static_cast<std::int64_t>(rng() % 40);
    const std::int64_t G = 1 + static_cast<std::int64_t>(rng() % 50);
    const std::int64_t M = static_cast<std::int64_t>(rng() % 20000);
    const BucketGeometry g{1, buckets, 1 + static_cast<std::int64_t>(rng() % 3000)};
    std::vector<std::int64_t> n(static_cast<size_t>(buckets * G), 0);
    for (std::int64_t j = 0; j < M; ++j)
      ++n[static_cast<size_t>(trial % 3 == 0 ? rng() % G : rng() % (buckets * G))];
    // The items kernel's rule: close once >= item_points, and at the last chunk if non-empty.
    std::int64_t items = 0;
    for (std::int64_t b = 0; b < buckets; ++b) {
      std::int64_t acc = 0;
      for (std::int64_t c = 0; c < G; ++c) {
        acc += n[static_cast<size_t>(b * G + c)];
        if (acc < g.item_points && c + 1 < G) continue;
        if (acc > 0) ++items;
        acc = 0;
      }
    }
    EXPECT_GE(bucket_item_capacity(M, g), items) << "M " << M << " W " << g.item_points;
    EXPECT_LE(bucket_item_capacity(M / 2, g), bucket_item_capacity(M, g));
  }
}

TEST(SortStrategy, PackedRecordSizes) {
  // (dim, real bytes, index bytes) -> 32-bit words: whole 8- or 16-byte stores.
  EXPECT_EQ(packed_record_words(1, 4, 4), 2);  // x, j
  EXPECT_EQ(packed_record_words(1, 4, 8), 4);
  EXPECT_EQ(packed_record_words(2, 4, 4), 4);  // x, y, j, pad
  EXPECT_EQ(packed_record_words(3, 4, 4), 4);  // x, y, z, j: 16 bytes
  EXPECT_EQ(packed_record_words(3, 4, 8), 6);
  EXPECT_EQ(packed_record_words(1, 8, 4), 4);
  EXPECT_EQ(packed_record_words(2, 8, 4), 6);
  EXPECT_EQ(packed_record_words(3, 8, 4), 8);  // double 3D: one 32-byte sector
  EXPECT_EQ(packed_record_words(3, 8, 8), 8);
  for (int dim = 1; dim <= 3; ++dim)
    for (int rb : {4, 8})
      for (int ib : {4, 8}) {
        const int w = packed_record_words(dim, rb, ib);
        EXPECT_GE(4 * w, dim * rb + ib);
        EXPECT_TRUE(w == 2 || w % 2 == 0) << w;
      }
}

// Every geometry: chunks of 2^shift points cover [0, M) with no empty chunk, a chunk never
// exceeds 2^30 points, blocks stay within the resident count unless the chunk cap forces more,
// and the table capacity covers nbins x blocks + 1 and never shrinks as M grows.
TEST(SortStrategy, BlockCountGeometry) {
  EXPECT_EQ(block_count_geometry(CountKind::Global, 1 << 20, 100, 264).blocks, 0);
  EXPECT_EQ(block_count_geometry(CountKind::Auto, 1 << 20, 100, 0).blocks, 0);  // no fit
  EXPECT_EQ(block_count_geometry(CountKind::Block, 0, 100, 264).blocks, 0);
  // auto: too few points per bin -> global; P1 (16.7M points, 32768 bins, one block per SM).
  EXPECT_EQ(block_count_geometry(CountKind::Auto, 32 * 1000 - 1, 1000, 264).blocks, 0);
  EXPECT_GT(block_count_geometry(CountKind::Auto, 32 * 1000, 1000, 264).blocks, 0);
  const BlockCount p1 = block_count_geometry(CountKind::Auto, 16777216, 32768, 132);
  EXPECT_EQ(p1.shift, 17);
  EXPECT_EQ(p1.blocks, 128);
  // block (forced): many small chunks even for few points.
  const BlockCount few = block_count_geometry(CountKind::Block, 300, 80, 2000);
  EXPECT_EQ(few.shift, 5);
  EXPECT_EQ(few.blocks, 10);

  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    const CountKind kind = trial % 2 ? CountKind::Block : CountKind::Auto;
    const std::int64_t M = trial % 97 == 0 ? std::int64_t(rng() % 4) << 40
                                           : 1 + static_cast<std::int64_t>(rng() % 50000000);
    const std::int64_t nbins = 1 + static_cast<std::int64_t>(rng() % 60000);
    const std::int64_t resident = 1 + static_cast<std::int64_t>(rng() % 3000);
    const BlockCount g = block_count_geometry(kind, M, nbins, resident);
    if (M == 0) {
      EXPECT_EQ(g.blocks, 0);
      continue;
    }
    if (g.blocks == 0) {
      EXPECT_TRUE(kind == CountKind::Auto && M < kBlockCountMinPointsPerBin * nbins) << M;
      continue;
    }
    const std::int64_t chunk = std::int64_t(1) << g.shift;
    EXPECT_LE(g.shift, kMaxChunkShift);
    EXPECT_GE(g.blocks * chunk, M);
    EXPECT_LT((g.blocks - 1) * chunk, M);  // no empty chunk
    const std::int64_t big = (M + (std::int64_t(1) << kMaxChunkShift) - 1) >> kMaxChunkShift;
    EXPECT_LE(g.blocks, std::max(resident, big));
    const std::int64_t cap = block_count_table_capacity(M, nbins, resident);
    EXPECT_GE(cap, nbins * g.blocks + 1);
    EXPECT_LE(cap, block_count_table_capacity(M + 1 + M / 3, nbins, resident));
  }
}

TEST(PoolPolicy, DefaultIsAnEighthOfTheDevice) {
  const std::size_t total = std::size_t(141) << 30;
  EXPECT_EQ(pool_release_threshold(total, nullptr), total / 8);
  EXPECT_EQ(pool_release_threshold(total, ""), total / 8);
}

TEST(PoolPolicy, EnvironmentOverrides) {
  const std::size_t total = std::size_t(100) << 30;
  EXPECT_EQ(pool_release_threshold(total, "0"), 0u);
  EXPECT_EQ(pool_release_threshold(total, "4096"), 4096u);
  EXPECT_EQ(pool_release_threshold(total, "3K"), 3u * 1024);
  EXPECT_EQ(pool_release_threshold(total, "512M"), 512ull << 20);
  EXPECT_EQ(pool_release_threshold(total, "2G"), 2ull << 30);
  EXPECT_EQ(pool_release_threshold(total, "25%"), total / 4);
  EXPECT_EQ(pool_release_threshold(total, "100%"), total);
  EXPECT_EQ(pool_release_threshold(total, "1e30"), UINT64_MAX);  // keep everything
  // Nonsense keeps the default.
  for (const char* bad : {"abc", "-5", "12X", "150%", "G", "nan"})
    EXPECT_EQ(pool_release_threshold(total, bad), total / 8) << bad;
}

}  // namespace
}  // namespace nufftmp::detail
