// The set_points calls that Plan<T> and DistPlan<T> share (the same signatures: the sources,
// and for type 3 the targets after them), bound with the data as addresses (integers) in the
// plan's memory space (set_points) or in host memory (set_points_host); the GIL is released
// while the C++ plan works.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>

#include "bindings.hpp"

namespace nufftmp::python {

using addr = std::uintptr_t;
template <typename T> const T* in(addr a) { return reinterpret_cast<const T*>(a); }

// set_points (Host false: the plan's memory space) or set_points_host, both forms.
template <typename T, typename P, bool Host, typename Class>
void def_set_points_in(Class& cls, const char* name) {
  const auto release = nb::call_guard<nb::gil_scoped_release>();
  cls.def(name,
          [](P& p, std::int64_t M, addr x, addr y, addr z) {
            if constexpr (Host) p.set_points_host(M, in<T>(x), in<T>(y), in<T>(z));
            else p.set_points(M, in<T>(x), in<T>(y), in<T>(z));
          },
          release)
      .def(name,
           [](P& p, std::int64_t M, addr x, addr y, addr z, std::int64_t N, addr s, addr t,
              addr u) {
             if constexpr (Host)
               p.set_points_host(M, in<T>(x), in<T>(y), in<T>(z), N, in<T>(s), in<T>(t), in<T>(u));
             else
               p.set_points(M, in<T>(x), in<T>(y), in<T>(z), N, in<T>(s), in<T>(t), in<T>(u));
           },
           release);
}

template <typename T, typename P, typename Class>
void def_set_points(Class& cls) {
  def_set_points_in<T, P, false>(cls, "set_points");
  def_set_points_in<T, P, true>(cls, "set_points_host");
}

}  // namespace nufftmp::python
