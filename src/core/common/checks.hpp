// Input checks shared by the engines. Messages name the parameter, the index and the value.
#pragma once

#include <cstdint>
#include <string>

#include "common/host_device.hpp"

namespace nufftmp::detail {

// Throws Error(BadPoints) for the first coordinate that is not in_fold_range (x, y, z in host
// memory), and Error(InvalidArgument) for null pointers or M < 0.
template <typename T>
void check_points_host(int dim, std::int64_t M, const T* x, const T* y, const T* z);

// Message for a bad coordinate; shared so the CUDA engine reports it in the same words.
std::string bad_point_message(char axis, std::int64_t index, double value);

// Message for a type 3 coordinate that is NaN or Inf; array is 'x', 'y', 'z' (sources) or
// 's', 't', 'u' (targets).
std::string bad_type3_point_message(char array, std::int64_t index, double value);

// Throws Error(InvalidArgument) when ptr is null and count > 0.
void require_pointer(const void* ptr, std::int64_t count, const char* name);

// The one rule for a legal coordinate, used by both engines (the CUDA engine in its sort
// kernel): finite, and -T(3pi) <= v <= T(3pi) with 3pi rounded to T. Closed and symmetric, so
// that every double in [-3pi, 3pi] is legal after rounding to float (3pi itself rounds up to
// float(3pi) = 9.42477798...), as FINUFFT accepts; NaN fails both comparisons. Folding takes
// +-T(3pi) to about +-pi, the same point of the period (common/grid.hpp, cpu/sorted_points).
template <typename T>
NUFFTMP_HD constexpr T fold_limit() {
  return static_cast<T>(3.0 * 3.14159265358979323846);
}
template <typename T>
NUFFTMP_HD bool in_fold_range(T v) {
  return v >= -fold_limit<T>() && v <= fold_limit<T>();
}

}  // namespace nufftmp::detail
