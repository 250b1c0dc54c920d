// Input checks shared by the engines. Messages name the parameter, the index and the value.
#pragma once

#include <cstdint>
#include <string>

namespace nufftmp::detail {

// Throws Error(BadPoints) for the first coordinate that is NaN, Inf or outside [-3pi, 3pi)
// (x, y, z in host memory), and Error(InvalidArgument) for null pointers or M < 0.
template <typename T>
void check_points_host(int dim, std::int64_t M, const T* x, const T* y, const T* z);

// The part of check_points_host that reads no coordinate: M >= 0 and the dim pointers non-null
// (Error(InvalidArgument)). For callers that test the values in a pass of their own.
void check_point_arrays(int dim, std::int64_t M, const void* x, const void* y, const void* z);

// Message for a bad coordinate; shared so the CUDA engine reports it in the same words.
std::string bad_point_message(char axis, std::int64_t index, double value);

// Throws Error(InvalidArgument) when ptr is null and count > 0.
void require_pointer(const void* ptr, std::int64_t count, const char* name);

// Bounds of a legal coordinate.
constexpr double kFoldLimit = 3.0 * 3.14159265358979323846;

}  // namespace nufftmp::detail
