// A number as the error messages of src/ewald write it: 12 significant digits, so that
// 1e-20 stays "1e-20" and 0.5 "0.5", NaN "nan".
#pragma once

#include <sstream>
#include <string>

namespace nufftmp::ewald::detail {

inline std::string num(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}

}  // namespace nufftmp::ewald::detail
