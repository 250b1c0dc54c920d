// nufftmp::Options field by field, under the C++ names. The Python package sets any field of
// this class from a keyword of the same name, so a new field of Options needs one def_rw line
// here and nothing in Python (enums accept their member names as strings there).
#include <nanobind/nanobind.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>

#include <array>
#include <cstdint>
#include <sstream>

#include "bindings.hpp"
#include "nufftmp/options.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::python {

void bind_options(nb::module_& m) {
  nb::enum_<Backend>(m, "Backend")
      .value("Auto", Backend::Auto)
      .value("Cpu", Backend::Cpu)
      .value("Cuda", Backend::Cuda);
  nb::enum_<Method>(m, "Method")
      .value("Auto", Method::Auto)
      .value("GM", Method::GM)
      .value("GMSort", Method::GMSort)
      .value("SM", Method::SM)
      .value("Output", Method::Output);
  nb::enum_<KernelEval>(m, "KernelEval")
      .value("Horner", KernelEval::Horner)
      .value("Direct", KernelEval::Direct);

  nb::class_<Options>(m, "Options")
      .def(nb::init<>())
      .def_rw("backend", &Options::backend)
      .def_rw("method", &Options::method)
      .def_rw("kernel_eval", &Options::kernel_eval)
      .def_rw("modeord", &Options::modeord)
      .def_rw("upsampfac", &Options::upsampfac)
      .def_rw("nthreads", &Options::nthreads)
      .def_rw("maxbatchsize", &Options::maxbatchsize)
      .def_rw("sort", &Options::sort)
      .def_rw("debug", &Options::debug)
      .def_rw("gpu_device", &Options::gpu_device)
      .def_prop_rw(
          "cuda_stream", [](const Options& o) { return reinterpret_cast<std::uintptr_t>(o.cuda_stream); },
          [](Options& o, std::uintptr_t s) { o.cuda_stream = reinterpret_cast<void*>(s); })
      .def_prop_rw(
          "binsize",
          [](const Options& o) { return std::array<int, 3>{o.binsize[0], o.binsize[1], o.binsize[2]}; },
          [](Options& o, const std::array<int, 3>& b) {
            for (int d = 0; d < 3; ++d) o.binsize[d] = b[d];
          })
      .def_rw("maxsubprobsize", &Options::maxsubprobsize)
      .def_rw("points_per_block", &Options::points_per_block)
      .def_rw("autotune", &Options::autotune);

  m.def("backend_name", [](Backend b) { return backend_name(b); });
  m.def("method_name", [](Method x) { return method_name(x); });
  m.def("cuda_available", &cuda_available);
  m.def("cuda_device_count", &cuda_device_count);
}

}  // namespace nufftmp::python
