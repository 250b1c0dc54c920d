#include "common/checks.hpp"

#include <cmath>
#include <sstream>

#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

std::string bad_point_message(char axis, std::int64_t index, double value) {
  std::ostringstream os;
  os.precision(17);
  os << "nonuniform point " << axis << "[" << index << "] = " << value
     << " is not a finite coordinate in [-3pi, 3pi] (3pi rounded to the precision)";
  return os.str();
}

std::string bad_type3_point_message(char array, std::int64_t index, double value) {
  const bool source = array == 'x' || array == 'y' || array == 'z';
  std::ostringstream os;
  os.precision(17);
  os << "type 3 " << (source ? "source " : "target ") << array << "[" << index << "] = " << value
     << " is not finite";
  return os.str();
}

void require_pointer(const void* ptr, std::int64_t count, const char* name) {
  if (ptr == nullptr && count > 0)
    throw Error(ErrorCode::InvalidArgument,
                std::string("null pointer for ") + name + " (" + std::to_string(count) +
                    " elements expected)");
}

template <typename T>
void check_points_host(int dim, std::int64_t M, const T* x, const T* y, const T* z) {
  if (M < 0)
    throw Error(ErrorCode::InvalidArgument, "number of points M = " + std::to_string(M) + " < 0");
  const T* coords[3] = {x, y, z};
  const char names[3] = {'x', 'y', 'z'};
  for (int d = 0; d < dim; ++d) {
    require_pointer(coords[d], M, d == 0 ? "x" : d == 1 ? "y" : "z");
    const T* c = coords[d];
    // Branch-free scan first (vectorizes); locate the index only when something is wrong.
    // Count instead of a short-circuit && so the loop vectorizes (NaN fails both compares).
    std::int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
    for (std::int64_t j = 0; j < M; ++j) bad += !in_fold_range(c[j]);
    if (bad != 0) {
      for (std::int64_t j = 0; j < M; ++j)
        if (!in_fold_range(c[j]))
          throw Error(ErrorCode::BadPoints, bad_point_message(names[d], j, double(c[j])));
    }
  }
}

template void check_points_host<float>(int, std::int64_t, const float*, const float*,
                                       const float*);
template void check_points_host<double>(int, std::int64_t, const double*, const double*,
                                        const double*);

}  // namespace nufftmp::detail
