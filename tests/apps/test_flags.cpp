// The apps' strict flag parser (apps/common/flags.hpp): whole values only, exact scientific
// notation for counts, ranges with open and closed ends, lists, choices, and the messages that
// name the flag and the value.
#include <getopt.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "common/expect_error.hpp"
#include "common/flags.hpp"

using namespace nufftmp::apps;

namespace {

std::string error_of(const std::function<void()>& fn) {
  return nufftmp::test::error_message<UsageError>(fn);
}

TEST(AppFlags, IntegersAreReadWholeAndExactly) {
  EXPECT_EQ(parse_integer("n-ref", "20000", 1, 1 << 30), 20000);
  EXPECT_EQ(parse_integer("n-ref", "2e4", 1, 1 << 30), 20000);
  EXPECT_EQ(parse_integer("n-ref", "2.5e1", 1, 1 << 30), 25);
  EXPECT_EQ(parse_integer("generations", "1e1", 1, 100), 10);
  EXPECT_EQ(
      parse_integer("seed", "9223372036854775807", 0, std::numeric_limits<std::int64_t>::max()),
      std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(parse_integer("x", "-3", -5, 5), -3);
  for (const char* bad :
       {"12abc", "abc", "", "1.5", "2.5e0", "1e-1", " 5", "5 ", "0x10", "nan", "inf", "1,000"})
    EXPECT_NE(
        error_of([&] { parse_integer("M", bad, 0, 1000); }).find("--M expects a whole number"),
        std::string::npos)
        << "'" << bad << "': " << error_of([&] { parse_integer("M", bad, 0, 1000); });
  EXPECT_EQ(error_of([] { parse_integer("M", "-5", 5, 65536); }),
            "--M must be in [5, 65536] (got '-5')");
  EXPECT_EQ(error_of([] { parse_integer("cg-iter", "0", 1, 100); }),
            "--cg-iter must be in [1, 100] (got '0')");
  EXPECT_NE(
      error_of([] { parse_integer("n", "1e30", 0, std::numeric_limits<std::int64_t>::max()); }),
      "");
  EXPECT_NE(error_of([] { parse_integer("n", "99999999999999999999", 0, 100); }).find("must be in"),
            std::string::npos);
  EXPECT_EQ(parse_int("type", "2", 1, 2), 2);
}

TEST(AppFlags, RealsAreFiniteDecimalsInTheirInterval) {
  EXPECT_DOUBLE_EQ(parse_real("lambda", "1e-3"), 1e-3);
  EXPECT_DOUBLE_EQ(parse_real("lambda", "-2.5"), -2.5);
  for (const char* bad : {"nan", "inf", "-inf", "1e-3x", "", "0x1p3", " 1", "1e999"})
    EXPECT_NE(
        error_of([&] { parse_real("fluence", bad); }).find("--fluence expects a finite number"),
        std::string::npos)
        << bad;
  const Interval open01{0.0, 1.0, true, true};
  EXPECT_EQ(error_of([&] { parse_real("cg-tol", "-1", open01); }),
            "--cg-tol must be in (0, 1) (got '-1')");
  EXPECT_NE(error_of([&] { parse_real("cg-tol", "1", open01); }), "");
  EXPECT_NE(error_of([&] { parse_real("cg-tol", "0", open01); }), "");
  EXPECT_DOUBLE_EQ(parse_real("cg-tol", "0.5", open01), 0.5);
  EXPECT_EQ(error_of([] { parse_real("sigma", "0", positive()); }),
            "--sigma must be > 0 (got '0')");
  EXPECT_DOUBLE_EQ(parse_real("fluence", "0", non_negative()), 0.0);
  EXPECT_EQ(error_of([] { parse_real("fluence", "-1", non_negative()); }),
            "--fluence must be >= 0 (got '-1')");
  EXPECT_DOUBLE_EQ(parse_real("upsampfac", "2", Interval{1.25, 2.0}), 2.0);
}

TEST(AppFlags, ChoicesAndLists) {
  EXPECT_EQ(parse_choice("shape", "ball", {"clusters", "ball"}), 1);
  EXPECT_EQ(error_of([] {
              parse_choice("shape", "cube", {"clusters", "ball"});
            }),
            "--shape must be one of clusters, ball (got 'cube')");
  EXPECT_EQ(split_list("soft-temp", "1,0.2", 2), (std::vector<std::string>{"1", "0.2"}));
  EXPECT_EQ(split_list("soft-temp", "1", 2), (std::vector<std::string>{"1"}));
  EXPECT_NE(error_of([] { split_list("soft-temp", "1,", 2); }).find("empty item"),
            std::string::npos);
  EXPECT_NE(error_of([] { split_list("q-ramp", "1,2,3", 2); }).find("at most 2"),
            std::string::npos);
}

TEST(AppFlags, UnknownFlagsMissingValuesAndPositionals) {
  static const option longopts[] = {{"M", required_argument, nullptr, 256},
                                    {nullptr, 0, nullptr, 0}};
  const auto run = [&](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int argc = static_cast<int>(args.size());
    return error_of([&] {
      opterr = 0;
      optind = 1;
      int c;
      while ((c = getopt_long(argc, argv.data(), ":h", longopts, nullptr)) != -1)
        if (c != 256) getopt_failure(c, argv.data());
      reject_positionals(argc, argv.data());
    });
  };
  EXPECT_EQ(run({"app", "--M", "5"}), "");
  EXPECT_EQ(run({"app", "--bogus"}), "unknown flag --bogus (see --help)");
  EXPECT_EQ(run({"app", "--M"}), "flag --M needs a value");
  EXPECT_NE(run({"app", "stray", "--M", "5"}).find("unexpected argument 'stray'"),
            std::string::npos);
}

}  // namespace
