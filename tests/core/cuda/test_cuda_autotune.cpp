// Options::autotune on the device: the tuned plan is still accurate (direct sum), the winner is
// cached on disk, a second plan of the same problem takes it from the cache without timing,
// a hand-written entry is obeyed, and a corrupt cache file is survived.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/accuracy_case.hpp"
#include "cuda/autotune.hpp"

namespace nufftmp::test {
namespace {

namespace fs = std::filesystem;
using detail::autotune_stats;

struct Problem {
  int dim, type;
  std::vector<std::int64_t> modes;
  std::int64_t M;
  double tol;
};

std::string name_of(const Problem& p) {
  return std::to_string(p.dim) + "d_type" + std::to_string(p.type);
}

class CudaAutotune : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nufftmp_autotune_gpu_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    cache_ = (dir_ / "sub" / "autotune.txt").string();  // the directory does not exist yet
    setenv("NUFFTMP_AUTOTUNE_CACHE", cache_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("NUFFTMP_AUTOTUNE_CACHE");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static Options tuned(int debug = 0) {
    Options o;
    o.backend = Backend::Cuda;
    o.autotune = true;
    o.debug = debug;
    return o;
  }
  // One transform on fresh data, checked against the direct sum; returns the plan's method.
  template <typename T>
  Method run_checked(const Problem& p, const Options& o, const char* what) {
    auto rng = make_rng(salt_of(name_of(p) + what));
    Plan<T> plan(p.type, p.modes, 1, 1, p.tol, o);
    expect_accurate(plan, name_of(p) + " " + what, Dist::Uniform, p.M, 0, p.tol, rng, 500);
    return plan.method();
  }
  std::string read_cache() const {
    std::ifstream in(cache_);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  fs::path dir_;
  std::string cache_;
};

const Problem kProblems[] = {
    {2, 1, {48, 40}, 6000, 1e-5},
    {2, 2, {48, 40}, 6000, 1e-5},
    {3, 1, {20, 18, 16}, 8000, 1e-5},
    {3, 2, {20, 18, 16}, 8000, 1e-5},
};

TEST_F(CudaAutotune, TunesOnceThenHitsTheCache) {
  for (const Problem& p : kProblems) {
    SCOPED_TRACE(name_of(p));
    const auto before = autotune_stats();
    ::testing::internal::CaptureStderr();
    const Method first = run_checked<float>(p, tuned(1), "first");
    const std::string log = ::testing::internal::GetCapturedStderr();
    const auto mid = autotune_stats();
    EXPECT_EQ(mid.timed, before.timed + 1);
    EXPECT_EQ(mid.cache_hits, before.cache_hits);
    EXPECT_NE(log.find("candidates"), std::string::npos) << log;  // debug lists the timings
    EXPECT_NE(log.find(" ms"), std::string::npos) << log;
    EXPECT_NE(log.find("autotune winner"), std::string::npos) << log;
    ASSERT_TRUE(fs::exists(cache_));

    const Method second = run_checked<float>(p, tuned(), "second");
    const auto after = autotune_stats();
    EXPECT_EQ(after.timed, mid.timed) << "the second plan timed again";
    EXPECT_EQ(after.cache_hits, mid.cache_hits + 1);
    EXPECT_EQ(second, first);
  }
  // One line per problem (4 different keys).
  std::istringstream lines(read_cache());
  int entries = 0;
  for (std::string l; std::getline(lines, l);) entries += (!l.empty() && l[0] != '#');
  EXPECT_EQ(entries, 4) << read_cache();
}

TEST_F(CudaAutotune, DoublePrecisionTunes) {
  const Problem p{3, 1, {16, 16, 16}, 5000, 1e-9};
  const auto before = autotune_stats();
  run_checked<double>(p, tuned(), "double");
  EXPECT_EQ(autotune_stats().timed, before.timed + 1);
}

// An entry written by hand (GM, which the heuristic never picks for 3D type 1) is obeyed.
TEST_F(CudaAutotune, CachedEntryIsApplied) {
  const Problem p{3, 1, {20, 18, 16}, 8000, 1e-5};
  const Options o = tuned();
  const auto cfg = detail::make_plan_config<float>(p.type, p.modes, 1, 1, p.tol, o);
  const std::string key = detail::autotune_key(detail::query_device(0).name, cfg, 4, p.M);
  detail::TuneEntry e;
  e.method = Method::GM;
  std::string note;
  ASSERT_TRUE(detail::store_tune_entry(cache_, key, e, &note)) << note;
  const auto before = autotune_stats();
  EXPECT_EQ(run_checked<float>(p, o, "from cache"), Method::GM);
  EXPECT_EQ(autotune_stats().cache_hits, before.cache_hits + 1);
  EXPECT_EQ(autotune_stats().timed, before.timed);
}

TEST_F(CudaAutotune, CorruptCacheIsIgnored) {
  fs::create_directories(fs::path(cache_).parent_path());
  { std::ofstream(cache_) << "\xff\xfe garbage\nkey\tmethod=??\n"; }
  const Problem p{2, 1, {48, 40}, 6000, 1e-5};
  const auto before = autotune_stats();
  ::testing::internal::CaptureStderr();
  run_checked<float>(p, tuned(1), "corrupt");
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("malformed"), std::string::npos) << log;
  EXPECT_EQ(autotune_stats().timed, before.timed + 1);
  int bad = -1;
  detail::parse_tune_cache(read_cache(), &bad);
  EXPECT_EQ(bad, 0) << "the rewritten cache is clean:\n" << read_cache();
}

// Several vectors in batches (a tail batch too): the user's output is the winner's, equal to
// an untuned plan's up to the tolerance, and the scratch timing runs leave no trace in it.
TEST_F(CudaAutotune, BatchesMatchUntunedPlan) {
  for (int type : {1, 2}) {
    SCOPED_TRACE(type);
    const std::vector<std::int64_t> modes = {36, 30};
    const int ntransf = 3;
    const std::int64_t M = 4000;
    auto rng = make_rng(salt_of("autotune_batches" + std::to_string(type)));
    Options o = tuned();
    o.maxbatchsize = 2;
    Options plain = o;
    plain.autotune = false;
    Plan<float> a(type, modes, -1, ntransf, 1e-5, o), b(type, modes, -1, ntransf, 1e-5, plain);
    const auto pts = make_points<float>(Dist::Clustered, 2, M, a.fine_grid(), rng);
    const std::int64_t nm = a.num_modes();
    auto c = random_complex<float>(M * ntransf, rng);
    auto f = random_complex<float>(nm * ntransf, rng);
    auto c2 = c, f2 = f;
    a.set_points_host(M, pts.x(), pts.y(), pts.z());
    b.set_points_host(M, pts.x(), pts.y(), pts.z());
    a.execute_host(c.data(), f.data());
    b.execute_host(c2.data(), f2.data());
    const double diff = type == 1 ? rel_l2(f.data(), f2.data(), nm * ntransf)
                                  : rel_l2(c.data(), c2.data(), M * ntransf);
    EXPECT_LE(diff, 1e-4);
    // A second execute on the same plan (no timing now) gives the same answer.
    auto c3 = c, f3 = f;
    a.execute_host(c3.data(), f3.data());
    const double again = type == 1 ? rel_l2(f.data(), f3.data(), nm * ntransf)
                                   : rel_l2(c.data(), c3.data(), M * ntransf);
    EXPECT_LE(again, 1e-6);
  }
}

}  // namespace
}  // namespace nufftmp::test
