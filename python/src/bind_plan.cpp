// nufftmp::Plan<float> / Plan<double> as PlanF32 / PlanF64, with data passed as addresses
// (integers) in the plan's memory space (set_points / execute) or in host memory (the _host
// calls). The GIL is released while the C++ plan works, so Python threads run meanwhile.
// validate_plan_* runs the plan's own checks (common/plan_config) without making an engine:
// the Python plan chooses its engine from the first arrays it sees, yet reports bad
// parameters when it is constructed, in the C++ words.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "common/plan_config.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::python {

namespace {

using addr = std::uintptr_t;
template <typename T> const T* in(addr a) { return reinterpret_cast<const T*>(a); }
template <typename T> std::complex<T>* cplx(addr a) { return reinterpret_cast<std::complex<T>*>(a); }

// Host (numpy) arrays handed over as arrays: nanobind reads their address through the buffer
// protocol, cheaper than numpy's .ctypes.data from Python (a per-call cost on small problems).
// The Python layer has checked dtype, shape and contiguity already.
using HostIn = nb::ndarray<nb::ro, nb::device::cpu>;
using HostOut = nb::ndarray<nb::device::cpu>;
template <typename V> V* address_of(const HostIn& a) {
  return reinterpret_cast<V*>(const_cast<void*>(a.data()));
}

template <typename T>
void bind_plan_t(nb::module_& m, const char* suffix) {
  using P = Plan<T>;
  using namespace nb::literals;
  const std::string name = std::string("Plan") + suffix;
  nb::class_<P>(m, name.c_str())
      .def(nb::init<int, const std::vector<std::int64_t>&, int, int, double, const Options&>(),
           "type"_a, "modes"_a, "isign"_a, "ntransf"_a, "tol"_a, "opts"_a,
           nb::call_guard<nb::gil_scoped_release>())
      .def("set_points",
           [](P& p, std::int64_t M, addr x, addr y, addr z) {
             p.set_points(M, in<T>(x), in<T>(y), in<T>(z));
           },
           nb::call_guard<nb::gil_scoped_release>())
      .def("set_points_host",
           [](P& p, std::int64_t M, addr x, addr y, addr z) {
             p.set_points_host(M, in<T>(x), in<T>(y), in<T>(z));
           },
           nb::call_guard<nb::gil_scoped_release>())
      .def("execute", [](P& p, addr c, addr f) { p.execute(cplx<T>(c), cplx<T>(f)); },
           nb::call_guard<nb::gil_scoped_release>())
      .def("execute_host", [](P& p, addr c, addr f) { p.execute_host(cplx<T>(c), cplx<T>(f)); },
           nb::call_guard<nb::gil_scoped_release>())
      // Coordinates in the C++ order (x fastest); y, z None below 2 resp. 3 dimensions.
      .def("set_points_host_arrays",
           [](P& p, const HostIn& x, std::optional<HostIn> y, std::optional<HostIn> z) {
             p.set_points_host(static_cast<std::int64_t>(x.shape(0)), address_of<const T>(x),
                               y ? address_of<const T>(*y) : nullptr,
                               z ? address_of<const T>(*z) : nullptr);
           },
           nb::call_guard<nb::gil_scoped_release>())
      // The transform's input and output, whichever of c and f they are for this type.
      .def("execute_host_arrays",
           [](P& p, const HostIn& in, const HostOut& out) {
             auto* o = static_cast<std::complex<T>*>(out.data());
             auto* i = address_of<std::complex<T>>(in);
             if (p.type() == 2) p.execute_host(o, i);
             else p.execute_host(i, o);
           },
           nb::call_guard<nb::gil_scoped_release>())
      .def("synchronize", &P::synchronize, nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("type", &P::type)
      .def_prop_ro("dim", &P::dim)
      .def_prop_ro("isign", &P::isign)
      .def_prop_ro("ntransf", &P::ntransf)
      .def_prop_ro("modes", &P::modes)
      .def_prop_ro("num_modes", &P::num_modes)
      .def_prop_ro("num_points", &P::num_points)
      .def_prop_ro("fine_grid", &P::fine_grid)
      .def_prop_ro("kernel_width", &P::kernel_width)
      .def_prop_ro("kernel_beta", &P::kernel_beta)
      .def_prop_ro("upsampfac", &P::upsampfac)
      .def_prop_ro("tolerance", &P::tolerance)
      .def_prop_ro("backend", &P::backend)
      .def_prop_ro("method", &P::method)
      .def_prop_ro("on_device", [](const P& p) { return p.memory_space() == MemorySpace::Device; })
      .def_prop_ro("memory_bytes", &P::memory_bytes)
      .def("describe", &P::describe);

  // Returns (effective tolerance, warning or "").
  m.def((std::string("validate_plan_") + suffix).c_str(),
        [](int type, const std::vector<std::int64_t>& modes, int isign, int ntransf, double tol,
           const Options& opts) {
          const auto cfg = detail::make_plan_config<T>(type, modes, isign, ntransf, tol, opts);
          return std::make_tuple(cfg.tol, cfg.warning);
        });
}

}  // namespace

void bind_plan(nb::module_& m) {
  bind_plan_t<float>(m, "F32");
  bind_plan_t<double>(m, "F64");
  // Type 3 (nonuniform to nonuniform) is not in the C++ plan yet: the Python package raises
  // NotImplementedError for it while this is false (its Python code paths are in place).
  m.attr("HAS_TYPE3") = false;
}

}  // namespace nufftmp::python
