// The host-only parts of the CUDA engine's autotune: cache key, cache file format and update,
// candidate list, choice of the fastest. No device needed (CI runs it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/plan_config.hpp"
#include "cuda/autotune.hpp"
#include "fake_device.hpp"
#include "nufftmp/errors.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::detail {
namespace {

namespace fs = std::filesystem;

template <typename T>
PlanConfig config(int type, std::vector<std::int64_t> modes, double tol, Options o = {}) {
  return make_plan_config<T>(type, modes, 1, 1, tol, o);
}

// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("nufftmp_autotune_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CudaAutotune, SizeBuckets) {
  EXPECT_EQ(size_bucket(0), 0);
  EXPECT_EQ(size_bucket(1), 0);
  EXPECT_EQ(size_bucket(2), 1);
  EXPECT_EQ(size_bucket(1023), 9);
  EXPECT_EQ(size_bucket(1024), 10);
  EXPECT_EQ(size_bucket(std::int64_t(1) << 40), 40);
}

TEST(CudaAutotune, KeySeparatesWhatMattersOnly) {
  const auto c = config<float>(1, {64, 64, 64}, 1e-5);
  const std::string k = autotune_key("NVIDIA H200", c, 4, 100000);
  EXPECT_EQ(k.rfind("NVIDIA H200|t1|d3|f|w", 0), 0u) << k;
  EXPECT_EQ(k, autotune_key("NVIDIA H200", c, 4, 110000));  // same M bucket
  EXPECT_NE(k, autotune_key("NVIDIA H200", c, 4, 300000));  // M bucket
  EXPECT_NE(k, autotune_key("NVIDIA H100", c, 4, 100000));  // GPU
  EXPECT_NE(k, autotune_key("NVIDIA H200", c, 8, 100000));  // precision
  EXPECT_NE(k, autotune_key("NVIDIA H200", config<float>(2, {64, 64, 64}, 1e-5), 4, 100000));
  EXPECT_NE(k, autotune_key("NVIDIA H200", config<float>(1, {64, 64}, 1e-5), 4, 100000));
  EXPECT_NE(k, autotune_key("NVIDIA H200", config<float>(1, {64, 64, 64}, 1e-3), 4, 100000));
  EXPECT_NE(k, autotune_key("NVIDIA H200", config<float>(1, {128, 128, 128}, 1e-5), 4, 100000));
  Options o;
  o.binsize[0] = 8;  // user-fixed knobs constrain the candidates: another key
  EXPECT_NE(k, autotune_key("NVIDIA H200", config<float>(1, {64, 64, 64}, 1e-5, o), 4, 100000));
  // The file's separators cannot come from a GPU name.
  const std::string odd = autotune_key("GPU\twith|odd\nname", c, 4, 1);
  EXPECT_EQ(odd.find('\t'), std::string::npos);
  EXPECT_EQ(odd.find('\n'), std::string::npos);
  EXPECT_EQ(odd.rfind("GPU_with_odd_name|", 0), 0u) << odd;
}

TEST(CudaAutotune, EntryRoundTripAndRejects) {
  TuneEntry e;
  e.method = Method::Output;
  e.bins[0] = 8;
  e.bins[1] = 4;
  e.bins[2] = 2;
  e.maxsub = 1024;
  e.np = 64;
  e.ms = 4.5;
  TuneEntry back;
  ASSERT_TRUE(parse_tune_entry(format_tune_entry(e), &back)) << format_tune_entry(e);
  EXPECT_EQ(back.method, Method::Output);
  EXPECT_EQ(back.bins[1], 4);
  EXPECT_EQ(back.maxsub, 1024);
  EXPECT_EQ(back.np, 64);
  EXPECT_DOUBLE_EQ(back.ms, 4.5);
  for (const char* bad : {"", "method=output", "bins=8,8,8", "method=auto bins=8,8,8",
                          "method=fast bins=8,8,8", "method=sm bins=8,8", "method=sm bins=8,x,8",
                          "method=sm bins=0,8,8", "method=sm bins=8,8,8 np=-3", "garbage"}) {
    TuneEntry x;
    EXPECT_FALSE(parse_tune_entry(bad, &x)) << bad;
  }
  TuneEntry newer;  // fields of a later version are ignored
  EXPECT_TRUE(parse_tune_entry("method=gm bins=1,1,1 future=7", &newer));
}

TEST(CudaAutotune, CacheTextSkipsCorruptLines) {
  const std::string text =
      "# comment\n"
      "a|t1\tmethod=sm bins=8,8,8 maxsub=1024 np=0 ms=1\n"
      "no tab here\n"
      "\tmethod=sm bins=8,8,8\n"
      "b|t2\tmethod=nonsense bins=1,1,1\n"
      "\x01\x02\xff binary\n"
      "b|t2\tmethod=gm-sort bins=16,16,2 maxsub=0 np=0 ms=2\n";
  int bad = -1;
  const TuneCache c = parse_tune_cache(text, &bad);
  EXPECT_EQ(bad, 4);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c.at("a|t1").method, Method::SM);
  EXPECT_EQ(c.at("b|t2").method, Method::GMSort);
  const TuneCache again = parse_tune_cache(format_tune_cache(c), &bad);
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(again.size(), 2u);
  EXPECT_EQ(again.at("b|t2").bins[0], 16);
}

TEST(CudaAutotune, CachePathFromEnvironment) {
  const char* saved[3] = {std::getenv("NUFFTMP_AUTOTUNE_CACHE"), std::getenv("XDG_CACHE_HOME"),
                          std::getenv("HOME")};
  const std::string keep[3] = {saved[0] ? saved[0] : "", saved[1] ? saved[1] : "",
                               saved[2] ? saved[2] : ""};
  setenv("NUFFTMP_AUTOTUNE_CACHE", "/x/explicit.txt", 1);
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(autotune_cache_path(), "/x/explicit.txt");
  unsetenv("NUFFTMP_AUTOTUNE_CACHE");
  EXPECT_EQ(autotune_cache_path(), "/xdg/nufftmp/autotune.txt");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(autotune_cache_path(), "/home/u/.cache/nufftmp/autotune.txt");
  unsetenv("HOME");
  EXPECT_EQ(autotune_cache_path(), "");
  const char* names[3] = {"NUFFTMP_AUTOTUNE_CACHE", "XDG_CACHE_HOME", "HOME"};
  for (int i = 0; i < 3; ++i)
    if (saved[i]) setenv(names[i], keep[i].c_str(), 1);
}

TEST(CudaAutotune, StoreCreatesDirectoriesMergesAndRecoversFromCorruption) {
  TempDir dir;
  const std::string path = (dir.path / "deep" / "er" / "autotune.txt").string();
  std::string note;
  TuneCache c = read_tune_cache(path, &note);
  EXPECT_TRUE(c.empty());
  EXPECT_NE(note.find("no cache file"), std::string::npos) << note;

  TuneEntry a;
  a.method = Method::SM;
  a.bins[0] = a.bins[1] = a.bins[2] = 8;
  ASSERT_TRUE(store_tune_entry(path, "key-a", a, &note)) << note;
  TuneEntry b;
  b.method = Method::GM;
  ASSERT_TRUE(store_tune_entry(path, "key-b", b, &note)) << note;
  c = read_tune_cache(path, &note);
  EXPECT_TRUE(note.empty()) << note;
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c.at("key-a").method, Method::SM);
  EXPECT_EQ(c.at("key-b").method, Method::GM);
  for (const auto& e : fs::directory_iterator(dir.path / "deep" / "er"))  // no temp files left
    EXPECT_EQ(e.path().filename(), "autotune.txt");

  // A corrupt file: read says so and gives what it could; a store rewrites it cleanly.
  { std::ofstream(path, std::ios::app) << "key-c\tmethod=sm bins=oops\n\xff\xfe\n"; }
  c = read_tune_cache(path, &note);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_NE(note.find("malformed"), std::string::npos) << note;
  a.method = Method::Output;
  ASSERT_TRUE(store_tune_entry(path, "key-a", a, &note)) << note;
  c = read_tune_cache(path, &note);
  EXPECT_TRUE(note.empty()) << note << "\n" << slurp(path);
  EXPECT_EQ(c.at("key-a").method, Method::Output);

  // A path that cannot be created: false and a reason, no exception.
  const std::string blocked = (dir.path / "deep" / "er" / "autotune.txt" / "sub.txt").string();
  EXPECT_FALSE(store_tune_entry(blocked, "k", a, &note));
  EXPECT_FALSE(note.empty());
  // A directory in place of the file: read ignores it with a note.
  c = read_tune_cache((dir.path / "deep").string(), &note);
  EXPECT_TRUE(c.empty());
  EXPECT_FALSE(note.empty());
}

bool has_method(const std::vector<MethodChoice>& v, Method m) {
  for (const auto& c : v)
    if (c.method == m) return true;
  return false;
}

TEST(CudaAutotune, CandidatesCoverMethodsAndKnobs) {
  const DeviceProps p = h200_like();
  const auto cfg = config<float>(1, {64, 64, 64}, 1e-5);
  const auto c = tune_candidates<float>(cfg, p);
  ASSERT_FALSE(c.empty());
  const MethodChoice heur = choose_method<float>(cfg, p);
  EXPECT_EQ(c[0].method, heur.method);  // the heuristic's choice first
  EXPECT_EQ(c[0].bins.size[0], heur.bins.size[0]);
  for (Method m : {Method::GM, Method::GMSort, Method::SM, Method::Output})
    EXPECT_TRUE(has_method(c, m)) << method_name(m);
  EXPECT_GE(c.size(), 8u);
  EXPECT_LE(c.size(), 12u);  // a few around the heuristic, not a sweep
  for (std::size_t i = 0; i < c.size(); ++i) {
    EXPECT_TRUE(c[i].note.empty());
    EXPECT_LE(c[i].shared_bytes, p.smem_optin);
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_FALSE(c[i].method == c[j].method && c[i].bins.size[0] == c[j].bins.size[0] &&
                   c[i].bins.size[1] == c[j].bins.size[1] &&
                   c[i].bins.size[2] == c[j].bins.size[2] && c[i].np == c[j].np)
          << "duplicate candidate " << i;
  }
  // Type 2 has no output-driven method.
  const auto t2 = tune_candidates<double>(config<double>(2, {40, 40}, 1e-9), p);
  EXPECT_FALSE(has_method(t2, Method::Output));
  EXPECT_TRUE(has_method(t2, Method::GM) && has_method(t2, Method::GMSort) &&
              has_method(t2, Method::SM));
  // A method the user named: only its variants; a bin size the user fixed stays fixed.
  Options o;
  o.method = Method::SM;
  o.binsize[0] = 16;
  const auto sm = tune_candidates<float>(config<float>(1, {256, 256}, 1e-5, o), p);
  EXPECT_GE(sm.size(), 2u);
  for (const auto& x : sm) {
    EXPECT_EQ(x.method, Method::SM);
    EXPECT_EQ(x.bins.size[0], 16);
  }
  // Without sorting there is only GM: nothing to compare.
  Options ns;
  ns.sort = false;
  EXPECT_EQ(tune_candidates<float>(config<float>(1, {256, 256}, 1e-5, ns), p).size(), 1u);
}

TEST(CudaAutotune, EntriesRebuildTheirChoice) {
  const DeviceProps p = h200_like();
  const auto cfg = config<double>(1, {32, 32, 32}, 1e-9);
  for (const MethodChoice& c : tune_candidates<double>(cfg, p)) {
    const auto back = choice_of_entry<double>(cfg, p, entry_of(c));
    ASSERT_TRUE(back.has_value()) << describe_choice(c, 3);
    EXPECT_EQ(back->method, c.method);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(back->bins.size[d], c.bins.size[d]);
    EXPECT_EQ(back->maxsub, c.maxsub);
    EXPECT_EQ(back->np, c.np);
  }
  TuneEntry out;
  out.method = Method::Output;  // not a type 2 method
  EXPECT_FALSE(choice_of_entry<double>(config<double>(2, {32, 32, 32}, 1e-9), p, out));
  // Written on a GPU with more shared memory than this one: does not apply.
  DeviceProps tiny = p;
  tiny.smem_optin = 4096;
  TuneEntry sm;
  sm.method = Method::SM;
  sm.bins[0] = sm.bins[1] = sm.bins[2] = 16;
  sm.maxsub = 1024;
  EXPECT_FALSE(choice_of_entry<double>(cfg, tiny, sm));
  EXPECT_TRUE(choice_of_entry<double>(cfg, p, sm));
  // A method the user excluded by naming another.
  Options o;
  o.method = Method::GMSort;
  EXPECT_FALSE(choice_of_entry<double>(config<double>(1, {32, 32, 32}, 1e-9, o), p, sm));
}

TEST(CudaAutotune, PickFastestSkipsFailures) {
  std::vector<MethodChoice> c(4);
  const double times[4] = {3.0, 1.5, -1, 2.0};  // -1: this candidate fails
  for (int i = 0; i < 4; ++i) c[i].np = i;  // tag
  auto timer = [&](const MethodChoice& ch) {
    if (times[ch.np] < 0) throw Error(ErrorCode::OutOfMemory, "no room");
    return times[ch.np];
  };
  std::string log;
  double best = 0;
  EXPECT_EQ(pick_fastest(c, 2, timer, &log, &best), 1);
  EXPECT_DOUBLE_EQ(best, 1.5);
  EXPECT_NE(log.find("skipped (no room)"), std::string::npos) << log;
  EXPECT_NE(log.find("1.5000 ms"), std::string::npos) << log;
  auto failing = [](const MethodChoice&) -> double { throw Error(ErrorCode::Internal, "x"); };
  EXPECT_EQ(pick_fastest(c, 2, failing, &log), -1);
  // Errors that are not the library's own are not swallowed.
  auto alien = [](const MethodChoice&) -> double { throw std::logic_error("bug"); };
  EXPECT_THROW(pick_fastest(c, 2, alien, &log), std::logic_error);
}

}  // namespace
}  // namespace nufftmp::detail
