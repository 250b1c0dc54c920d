// One strict flag parser for the apps (nufftmp-bench, nufftmp-synth, nufftmp-mtip). Every value
// is read whole and checked against its range; anything else is a UsageError naming the flag
// and the value, which the apps report with exit status 2. No atoi/atof anywhere: "12abc",
// "abc", "" and "1.5" for a count are refused, never read as 12, 0 or 1.
#pragma once

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace nufftmp::apps {

// A bad command line.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws UsageError("--flag why (got 'value')"). flag without its leading dashes.
[[noreturn]] void bad_value(const std::string& flag, const std::string& value,
                            const std::string& why);

// An interval of reals; an open end excludes its bound. Infinite ends are allowed.
struct Interval {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;
  bool contains(double v) const;
  std::string describe() const;  // "in (0, 1)", "> 0", ">= 0"
};
inline Interval positive() { return {0.0, std::numeric_limits<double>::infinity(), true, false}; }
inline Interval non_negative() { return {0.0, std::numeric_limits<double>::infinity()}; }

// A finite real written in decimal ("1e-3", "-2.5"): no "nan", "inf", hex, blanks or trailing
// characters.
double parse_real(const std::string& flag, const char* s, const Interval& range = Interval());

// A whole number in [lo, hi]. Scientific notation is accepted when it denotes a whole number
// exactly ("2e4" is 20000; "2.5e0" and "1e-1" are refused).
std::int64_t parse_integer(const std::string& flag, const char* s, std::int64_t lo,
                           std::int64_t hi);
int parse_int(const std::string& flag, const char* s, int lo, int hi);

// The index of s among names (exact match), else UsageError listing them.
int parse_choice(const std::string& flag, const char* s, std::initializer_list<const char*> names);

// "a,b,c" -> {"a", "b", "c"}; at least 1 and at most max_items items, none empty.
std::vector<std::string> split_list(const std::string& flag, const char* s, std::size_t max_items);

// For getopt_long run with ':' leading the short-option string and opterr = 0: the UsageError
// for its '?' (unknown flag) and ':' (missing value) results.
[[noreturn]] void getopt_failure(int c, char** argv);
// After the getopt loop: positional arguments are refused (UsageError naming the first).
void reject_positionals(int argc, char** argv);

// The apps' command-line outcome: parse(help) fills out and sets help for --help. Returns -1
// to go on, else the exit status: 0 after --help (usage() printed), 2 after a UsageError
// (printed as "<prog>: <message>" on stderr). print: this process prints (MPI rank 0).
template <typename Options, typename Parse, typename Usage>
int parse_command_line(const char* prog, bool print, Parse parse, Usage usage, Options& out) {
  try {
    bool help = false;
    out = parse(help);
    if (!help) return -1;
    if (print) usage();
    return 0;
  } catch (const UsageError& e) {
    if (print) std::fprintf(stderr, "%s: %s\n", prog, e.what());
    return 2;
  }
}

}  // namespace nufftmp::apps
