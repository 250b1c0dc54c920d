// set_points called again and again on one CUDA plan (M-TIP sets new points every generation):
// growing and shrinking M, a bad point on the second call then a good call, clustered points
// after uniform ones - each result against the direct sum - in every variant of the sort
// (sort_strategy.hpp): bucket, packed, gather and direct scatter, block and global counting, 32-
// and 64-bit indices, the bucket scatter with buckets of several bins and split buckets
// (NUFFTMP_CUDA_BUCKET), its passes' variants (NUFFTMP_CUDA_BUCKET_P2/_P3), the default, and
// the records layout of the points (NUFFTMP_CUDA_POINTS).
// And the promise of bin_sort.hpp: a second set_points with no more points than the first
// allocates nothing.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "common/reference_check.hpp"
#include "common/test_data.hpp"
#include "scoped_env.hpp"
#include "cuda/device_pool.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::test {
namespace {

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call


// A variant of the sort, selected by the engine's environment knobs (null: unset).
struct Variant {
  std::string name;
  const char* index64;  // NUFFTMP_CUDA_INDEX64
  const char* scatter;  // NUFFTMP_CUDA_SCATTER
  const char* count;    // NUFFTMP_CUDA_COUNT ("block" runs block counting even on few points)
  const char* bucket = nullptr;  // NUFFTMP_CUDA_BUCKET: bins per bucket, item points
  const char* pass2 = nullptr;   // NUFFTMP_CUDA_BUCKET_P2: chunk, tile, tile2k
  const char* pass3 = nullptr;   // NUFFTMP_CUDA_BUCKET_P3: piece2k, piece4k
  const char* points = nullptr;  // NUFFTMP_CUDA_POINTS: split, records
};
std::vector<Variant> variants() {
  std::vector<Variant> v = {{"default", nullptr, nullptr, nullptr}};
  for (const char* scatter : {"bucket", "packed", "gather", "direct"})
    for (const char* count : {"block", "global"})
      for (const char* index64 : {static_cast<const char*>(nullptr), "1"})
        v.push_back({std::string(scatter) + "_" + count + (index64 ? "_index64" : ""), index64,
                     scatter, count});
  // The test problems have fewer than 256 bins, so by default every bucket is one bin and
  // holds one item: buckets of 3 and 7 bins (the last one short), and items cut at every chunk
  // (1 point) or at 500 points, reach the paths of large problems and clustered points.
  for (const char* index64 : {static_cast<const char*>(nullptr), "1"}) {
    const std::string w = index64 ? "_index64" : "";
    v.push_back({"bucket_block_split3" + w, index64, "bucket", "block", "3,1"});
    v.push_back({"bucket_block_split7" + w, index64, "bucket", "block", "7,500"});
  }
  // The bucket scatter's pass-2 tile variants (each tile takes its place in its (bucket, chunk)
  // segment by an atomic; the test problems' chunks of 32+ points cut into tiles of 16-64
  // points by the knob's third field, so several tiles share a chunk's segments) and pass 3's
  // pieces of 4096, alone and together, with one and several bins per bucket and split
  // buckets, 32- and 64-bit.
  v.push_back({"bucket_block_tile", nullptr, "bucket", "block", nullptr, "tile"});
  v.push_back({"bucket_block_tile_split3_tiles16", nullptr, "bucket", "block", "3,1,16", "tile"});
  v.push_back({"bucket_block_tile2k_split7_tiles32_index64", "1", "bucket", "block", "7,500,32",
               "tile2k"});
  v.push_back({"bucket_block_piece4k_split7", nullptr, "bucket", "block", "7,500", nullptr,
               "piece4k"});
  v.push_back({"bucket_block_tile_piece4k_split7_tiles64_index64", "1", "bucket", "block",
               "7,500,64", "tile", "piece4k"});
  v.push_back({"bucket_block_tile2k_piece4k", nullptr, "bucket", "block", nullptr, "tile2k",
               "piece4k"});
  // The records layout (the sorted records are the points): written by the packed scatter and
  // by the bucket's pass 3 in each of its variants; read by every execute kernel the shapes
  // reach. 64-bit indices and the gather scatter fall back to split (sorted_layout): asked for
  // records, they must still be right.
  const char* r = "records";
  v.push_back({"default_records", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, r});
  for (const char* scatter : {"bucket", "packed"})
    for (const char* count : {"block", "global"})
      v.push_back({std::string(scatter) + "_" + count + "_records", nullptr, scatter, count,
                   nullptr, nullptr, nullptr, r});
  v.push_back({"bucket_block_split3_records", nullptr, "bucket", "block", "3,1", nullptr,
               nullptr, r});
  v.push_back({"bucket_block_tile_piece2k_split7_tiles16_records", nullptr, "bucket", "block",
               "7,500,16", "tile", "piece2k", r});
  v.push_back({"bucket_block_chunk_piece4k_split7_records", nullptr, "bucket", "block", "7,500",
               "chunk", "piece4k", r});
  v.push_back({"packed_block_index64_records", "1", "packed", "block", nullptr, nullptr, nullptr,
               r});
  v.push_back({"bucket_block_index64_records", "1", "bucket", "block", nullptr, nullptr, nullptr,
               r});
  v.push_back({"gather_block_records", nullptr, "gather", "block", nullptr, nullptr, nullptr, r});
  // The split layout forced, where the default (default_point_layout) writes records.
  const char* sp = "split";
  v.push_back({"default_splitlayout", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, sp});
  for (const char* scatter : {"bucket", "packed"})
    v.push_back({std::string(scatter) + "_block_splitlayout", nullptr, scatter, "block", nullptr,
                 nullptr, nullptr, sp});
  v.push_back({"bucket_block_tile2k_piece4k_splitlayout", nullptr, "bucket", "block", nullptr,
               "tile2k", "piece4k", sp});
  return v;
}

struct Shape {
  int type;
  std::vector<std::int64_t> N;
  Method method;
};
// Every sort the engine makes: with subproblems (SM, output-driven), without (GM-sort), none
// (GM, in user order).
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {{1, {18, 13, 16}, Method::Output},
                                       {2, {40, 33}, Method::SM},
                                       {1, {301}, Method::SM},
                                       {2, {18, 13, 16}, Method::GMSort},
                                       {1, {40, 33}, Method::GM}};
  return s;
}

Options small_bins(Method m) {
  Options o;
  o.backend = Backend::Cuda;
  o.method = m;
  // Many bins and subproblems even for small problems.
  o.maxsubprobsize = 64;
  o.binsize[0] = o.binsize[1] = o.binsize[2] = 8;
  return o;
}

std::string label(const Variant& v, const Shape& s) {
  return v.name + ", type " + std::to_string(s.type) + ", " +
         std::to_string(s.N.size()) + "D, " + method_name(s.method);
}

template <typename T>
double tol_of() {
  return sizeof(T) == 4 ? 1e-5 : 1e-9;
}

template <typename T>
void expect_accurate(Plan<T>& plan, const Points<T>& pts, std::mt19937_64& rng,
                     const std::string& what) {
  const auto r = check_transform(plan, 0, pts, rng, 300);
  EXPECT_LE(r.rel_err, 10 * tol_of<T>()) << what;
  EXPECT_EQ(plan.num_points(), pts.M) << what;
}

// One plan of shape s in variant v, with its own random stream (salted by what the test does).
template <typename T>
struct Scenario {
  Scenario(const Variant& v, const Shape& s, const char* what)
      : env_index64("NUFFTMP_CUDA_INDEX64", v.index64),
        env_scatter("NUFFTMP_CUDA_SCATTER", v.scatter),
        env_count("NUFFTMP_CUDA_COUNT", v.count),
        env_bucket("NUFFTMP_CUDA_BUCKET", v.bucket),
        env_pass2("NUFFTMP_CUDA_BUCKET_P2", v.pass2),
        env_pass3("NUFFTMP_CUDA_BUCKET_P3", v.pass3),
        env_points("NUFFTMP_CUDA_POINTS", v.points),
        name(label(v, s) + (sizeof(T) == 4 ? ", float" : ", double")),
        rng(make_rng(salt_of(std::string(what) + " " + name))),
        plan(s.type, s.N, 1, 1, tol_of<T>(), small_bins(s.method)),
        dim(static_cast<int>(s.N.size())) {}
  void check(const Points<T>& pts, const std::string& when) {
    expect_accurate(plan, pts, rng, name + ", " + when);
  }
  // Set before the plan reads them.
  ScopedEnv env_index64, env_scatter, env_count, env_bucket, env_pass2, env_pass3, env_points;
  std::string name;
  std::mt19937_64 rng;
  Plan<T> plan;
  int dim;
};

// M grows, then shrinks (to none, then some again): each call gives the direct sum's answer.
template <typename T>
void grow_and_shrink(const Variant& v, const Shape& s) {
  Scenario<T> t(v, s, "grow");
  for (std::int64_t M : {300, 5000, 20000, 800, 0, 4000}) {
    if (M == 0) {
      t.plan.set_points_host(0, nullptr, nullptr, nullptr);
      EXPECT_EQ(t.plan.num_points(), 0) << t.name;
      continue;
    }
    t.check(uniform_points<T>(t.dim, M, t.rng), "M = " + std::to_string(M));
  }
}

// A NaN on the second call: BadPoints naming the axis and the first bad index, execute
// refused, and the next good call works.
template <typename T>
void bad_then_good(const Variant& v, const Shape& s) {
  Scenario<T> t(v, s, "bad");
  t.check(uniform_points<T>(t.dim, 3000, t.rng), "first");
  auto bad = uniform_points<T>(t.dim, 4000, t.rng);
  const int axis = t.dim - 1;
  bad.xyz[axis][1234] = std::numeric_limits<T>::quiet_NaN();
  bad.xyz[axis][3000] = std::numeric_limits<T>::infinity();  // a later bad index
  const std::string want = std::string(1, "xyz"[axis]) + "[1234]";
  try {
    t.plan.set_points_host(bad.M, bad.x(), bad.y(), bad.z());
    ADD_FAILURE() << t.name << ": expected BadPoints";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::BadPoints) << e.what();
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
  std::vector<std::complex<T>> c(4000), f(static_cast<size_t>(t.plan.num_modes()));
  EXPECT_THROW(t.plan.execute_host(c.data(), f.data()), Error) << t.name << ": points rejected";
  t.check(uniform_points<T>(t.dim, 3500, t.rng), "after the bad call");
}

// Clustered after uniform, then uniform again: the bins' fill changes completely between calls.
template <typename T>
void clustered_after_uniform(const Variant& v, const Shape& s) {
  Scenario<T> t(v, s, "cluster");
  t.check(uniform_points<T>(t.dim, 6000, t.rng), "uniform");
  t.check(clustered_points<T>(t.dim, 6000, t.plan.fine_grid(), t.rng), "clustered");
  t.check(uniform_points<T>(t.dim, 5000, t.rng), "uniform again");
}

// One suite per variant, so a sanitizer run can pick one (e.g. --gtest_filter=*/default).
class CudaSetPoints : public ::testing::TestWithParam<Variant> {};

TEST_P(CudaSetPoints, GrowAndShrink) {
  for (const Shape& s : shapes()) {
    grow_and_shrink<float>(GetParam(), s);
    grow_and_shrink<double>(GetParam(), s);
  }
}

TEST_P(CudaSetPoints, BadPointThenGoodPoints) {
  for (const Shape& s : shapes()) {
    bad_then_good<float>(GetParam(), s);
    bad_then_good<double>(GetParam(), s);
  }
}

TEST_P(CudaSetPoints, ClusteredAfterUniform) {
  for (const Shape& s : shapes()) clustered_after_uniform<float>(GetParam(), s);
}

INSTANTIATE_TEST_SUITE_P(Sort, CudaSetPoints, ::testing::ValuesIn(variants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return info.param.name;
                         });

class CudaSetPointsMemory : public ::testing::TestWithParam<Variant> {};

// Device pointers, so that no host copy is involved: after a first set_points, more calls with
// the same or fewer points make no allocation and keep the plan's memory; the result is still
// the direct sum's; more points do allocate (the hook counts).
template <typename T>
void second_call_allocates_nothing(const Variant& v, const Shape& s) {
  ScopedEnv env_index64("NUFFTMP_CUDA_INDEX64", v.index64);
  ScopedEnv env_scatter("NUFFTMP_CUDA_SCATTER", v.scatter);
  ScopedEnv env_count("NUFFTMP_CUDA_COUNT", v.count);
  ScopedEnv env_bucket("NUFFTMP_CUDA_BUCKET", v.bucket);
  ScopedEnv env_pass2("NUFFTMP_CUDA_BUCKET_P2", v.pass2);
  ScopedEnv env_pass3("NUFFTMP_CUDA_BUCKET_P3", v.pass3);
  ScopedEnv env_points("NUFFTMP_CUDA_POINTS", v.points);
  auto rng = make_rng(salt_of("noalloc " + label(v, s) + std::to_string(sizeof(T))));
  Plan<T> plan(s.type, s.N, 1, 1, tol_of<T>(), small_bins(s.method));
  const int dim = static_cast<int>(s.N.size());
  const std::int64_t M = 6000, nm = plan.num_modes();
  std::vector<T*> xyz(3, nullptr);
  for (int d = 0; d < dim; ++d)
    CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&xyz[d]), 2 * M * sizeof(T)));
  std::complex<T>*dc = nullptr, *df = nullptr;
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&dc), 2 * M * sizeof(std::complex<T>)));
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&df), nm * sizeof(std::complex<T>)));
  CUDA_OK(cudaMemset(dc, 0, 2 * M * sizeof(std::complex<T>)));
  CUDA_OK(cudaMemset(df, 0, nm * sizeof(std::complex<T>)));
  auto upload = [&](const Points<T>& pts) {
    for (int d = 0; d < dim; ++d)
      ASSERT_EQ(cudaMemcpy(xyz[d], pts.xyz[d].data(), pts.M * sizeof(T), cudaMemcpyHostToDevice),
                cudaSuccess);
  };
  const std::string what = label(v, s) + (sizeof(T) == 4 ? ", float" : ", double");

  upload(uniform_points<T>(dim, M, rng));
  plan.set_points(M, xyz[0], xyz[1], xyz[2]);
  plan.execute(dc, df);
  plan.synchronize();
  const std::uint64_t allocs = detail::pool_allocation_count();
  const std::size_t bytes = plan.memory_bytes();

  Points<T> last;
  for (std::int64_t m : {M, M, M / 2, std::int64_t(1), M}) {
    last = uniform_points<T>(dim, m, rng);
    upload(last);
    plan.set_points(m, xyz[0], xyz[1], xyz[2]);
    plan.execute(dc, df);
    plan.synchronize();
    EXPECT_EQ(detail::pool_allocation_count(), allocs) << what << ", M = " << m;
    EXPECT_EQ(plan.memory_bytes(), bytes) << what << ", M = " << m;
  }
  // The last call's answer (M new points) against the direct sum.
  {
    const std::int64_t N[3] = {plan.modes()[0], plan.modes()[1], plan.modes()[2]};
    const bool t1 = s.type == 1;
    const std::int64_t nin = t1 ? M : nm, nout = t1 ? nm : M;
    const auto in = random_complex<T>(nin, rng);
    CUDA_OK(cudaMemcpy(t1 ? dc : df, in.data(), nin * sizeof(std::complex<T>),
                       cudaMemcpyHostToDevice));
    plan.execute(dc, df);
    std::vector<std::complex<T>> out(static_cast<size_t>(nout));
    CUDA_OK(cudaMemcpy(out.data(), t1 ? df : dc, nout * sizeof(std::complex<T>),
                       cudaMemcpyDeviceToHost));
    const auto idx = sample_indices(nout, 300, rng);
    const auto exact =
        t1 ? reference::type1<T>(dim, M, last.x(), last.y(), last.z(), in.data(), 1, N, 0, idx)
           : reference::type2<T>(dim, last.x(), last.y(), last.z(), in.data(), 1, N, 0, idx);
    EXPECT_LE(reference::rel_l2_error<T>(exact, out.data(), idx), 10 * tol_of<T>()) << what;
  }
  // More points than ever: the buffers grow, and the hook sees it.
  upload(uniform_points<T>(dim, 2 * M, rng));
  plan.set_points(2 * M, xyz[0], xyz[1], xyz[2]);
  EXPECT_GT(detail::pool_allocation_count(), allocs) << what << ": the hook counts nothing";
  for (T* p : xyz) cudaFree(p);
  cudaFree(dc);
  cudaFree(df);
}

TEST_P(CudaSetPointsMemory, SecondCallAllocatesNothing) {
  for (const Shape& s : shapes()) {
    second_call_allocates_nothing<float>(GetParam(), s);
    second_call_allocates_nothing<double>(GetParam(), s);
  }
}

INSTANTIATE_TEST_SUITE_P(Sort, CudaSetPointsMemory, ::testing::ValuesIn(variants()),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace nufftmp::test
