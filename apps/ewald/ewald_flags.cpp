#include "ewald_flags.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

namespace nufftmp::ewald_app {

namespace {

[[noreturn]] void bad(const std::string& flag, const char* s, const std::string& why) {
  throw UsageError("--" + flag + " " + why + " (got '" + (s ? s : "") + "')");
}

std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

bool whole_double(const char* s, double& v) {
  if (!s || !*s) return false;
  const char* end = s + std::char_traits<char>::length(s);
  const auto r = std::from_chars(s, end, v, std::chars_format::general);
  return r.ec == std::errc() && r.ptr == end && std::isfinite(v);
}

}  // namespace

double parse_real(const std::string& flag, const char* s, double lo, double hi, bool lo_open) {
  double v = 0;
  if (!whole_double(s, v)) bad(flag, s, "needs a finite number");
  if (v < lo || v > hi || (lo_open && v == lo))
    bad(flag, s, "must be in " + std::string(lo_open ? "(" : "[") + num(lo) + ", " + num(hi) + "]");
  return v;
}

std::int64_t parse_integer(const std::string& flag, const char* s, std::int64_t lo,
                           std::int64_t hi) {
  std::int64_t v = 0;
  const char* end = s ? s + std::char_traits<char>::length(s) : nullptr;
  const auto r = s ? std::from_chars(s, end, v) : std::from_chars_result{nullptr, std::errc::invalid_argument};
  if (!s || !*s || r.ec != std::errc() || r.ptr != end) {
    double d = 0;  // "1e6": whole numbers in scientific notation
    if (!whole_double(s, d) || d != std::floor(d) || std::abs(d) > 9.2e18)
      bad(flag, s, "needs a whole number");
    v = static_cast<std::int64_t>(d);
  }
  if (v < lo || v > hi)
    bad(flag, s, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

int parse_choice(const std::string& flag, const char* s, std::initializer_list<const char*> names) {
  int i = 0;
  std::string list;
  for (const char* n : names) {
    if (s && std::string(s) == n) return i;
    list += (i ? ", " : "") + std::string(n);
    ++i;
  }
  bad(flag, s, "must be one of " + list);
}

std::vector<std::int64_t> parse_integer_list(const std::string& flag, const char* s,
                                             std::size_t n, std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> out;
  std::string all = s ? s : "", item;
  std::istringstream is(all);
  while (std::getline(is, item, ',')) out.push_back(parse_integer(flag, item.c_str(), lo, hi));
  if (out.size() != n || (!all.empty() && all.back() == ','))
    bad(flag, s, "needs " + std::to_string(n) + " comma-separated whole numbers");
  return out;
}

}  // namespace nufftmp::ewald_app
