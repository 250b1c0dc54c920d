// Strict flag values for nufftmp-ewald: every value is read whole (std::from_chars) and
// checked against its range; anything else is a UsageError naming the flag and the value
// (exit status 2). The signatures follow the apps' shared flag parser (apps/common/flags.hpp
// on the apps-hardening branch), so that switching to it is a rename.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace nufftmp::ewald_app {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A finite real in [lo, hi] (open at lo when lo_open).
double parse_real(const std::string& flag, const char* s, double lo, double hi,
                  bool lo_open = false);
// A whole number in [lo, hi]; "1e6" is accepted when it is a whole number exactly.
std::int64_t parse_integer(const std::string& flag, const char* s, std::int64_t lo,
                           std::int64_t hi);
// The index of s among names.
int parse_choice(const std::string& flag, const char* s, std::initializer_list<const char*> names);
// "a,b,c": exactly n whole numbers in [lo, hi].
std::vector<std::int64_t> parse_integer_list(const std::string& flag, const char* s,
                                             std::size_t n, std::int64_t lo, std::int64_t hi);

}  // namespace nufftmp::ewald_app
