// The apps' flag parser (see flags.hpp).
#include "common/flags.hpp"

#include <getopt.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace nufftmp::apps {

namespace {

std::string text(const char* s) { return s ? std::string(s) : std::string(); }

std::string number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// Digits, signs, a point and an exponent only: strtod alone would also take "nan", "inf",
// hex ("0x10") and leading blanks.
bool decimal_syntax(const std::string& v) {
  if (v.empty()) return false;
  for (char ch : v)
    if (!std::strchr("0123456789+-.eE", ch)) return false;
  return true;
}

}  // namespace

void bad_value(const std::string& flag, const std::string& value, const std::string& why) {
  throw UsageError("--" + flag + " " + why + " (got '" + value + "')");
}

bool Interval::contains(double v) const {
  const bool above = lo_open ? v > lo : v >= lo;
  const bool below = hi_open ? v < hi : v <= hi;
  return above && below;
}

std::string Interval::describe() const {
  const bool lo_inf = std::isinf(lo), hi_inf = std::isinf(hi);
  if (lo_inf && hi_inf) return "a number";
  if (hi_inf) return (lo_open ? "> " : ">= ") + number(lo);
  if (lo_inf) return (hi_open ? "< " : "<= ") + number(hi);
  return std::string("in ") + (lo_open ? "(" : "[") + number(lo) + ", " + number(hi) +
         (hi_open ? ")" : "]");
}

double parse_real(const std::string& flag, const char* s, const Interval& range) {
  const std::string v = text(s);
  errno = 0;
  char* end = nullptr;
  const double d = decimal_syntax(v) ? std::strtod(v.c_str(), &end) : 0.0;
  if (!decimal_syntax(v) || end == v.c_str() || *end != '\0' || errno == ERANGE ||
      !std::isfinite(d))
    bad_value(flag, v, "expects a finite number");
  if (!range.contains(d)) bad_value(flag, v, "must be " + range.describe());
  return d;
}

std::int64_t parse_integer(const std::string& flag, const char* s, std::int64_t lo,
                           std::int64_t hi) {
  const std::string v = text(s);
  const std::string range = "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!decimal_syntax(v)) bad_value(flag, v, "expects a whole number");
  errno = 0;
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (end != v.c_str() && *end == '\0') {
    if (errno == ERANGE || n < lo || n > hi) bad_value(flag, v, range);
    return n;
  }
  // Scientific notation: whole and exact (doubles hold every integer up to 2^53).
  errno = 0;
  end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0' || !std::isfinite(d) || d != std::floor(d))
    bad_value(flag, v, "expects a whole number");
  if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) bad_value(flag, v, range);
  if (std::fabs(d) > 9007199254740992.0) bad_value(flag, v, "is too large for 1eN notation");
  const auto i = static_cast<std::int64_t>(d);
  if (i < lo || i > hi) bad_value(flag, v, range);
  return i;
}

int parse_int(const std::string& flag, const char* s, int lo, int hi) {
  return static_cast<int>(parse_integer(flag, s, lo, hi));
}

int parse_choice(const std::string& flag, const char* s, std::initializer_list<const char*> names) {
  const std::string v = text(s);
  int i = 0;
  std::string list;
  for (const char* n : names) {
    if (v == n) return i;
    list += (i ? ", " : "") + std::string(n);
    ++i;
  }
  bad_value(flag, v, "must be one of " + list);
}

std::vector<std::string> split_list(const std::string& flag, const char* s, std::size_t max_items) {
  const std::string v = text(s);
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = v.find(',', start);
    items.push_back(
        v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (items.back().empty()) bad_value(flag, v, "has an empty item");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (items.size() > max_items)
    bad_value(flag, v, "takes at most " + std::to_string(max_items) + " comma-separated values");
  return items;
}

void getopt_failure(int c, char** argv) {
  const std::string arg = optind > 0 ? text(argv[optind - 1]) : std::string();
  if (c == ':') throw UsageError("flag " + arg + " needs a value");
  throw UsageError("unknown flag " + arg + " (see --help)");
}

void reject_positionals(int argc, char** argv) {
  if (optind < argc)
    throw UsageError(std::string("unexpected argument '") + argv[optind] +
                     "' (every value follows its flag; see --help)");
}

}  // namespace nufftmp::apps
