// nufftmp::dist: Context over a communicator given as its MPI handle (an integer: mpi4py's
// MPI._handleof(comm)), and DistPlan<float> / DistPlan<double> with data as addresses, like
// the single-device plan. Every call of these objects is collective; the C++ layer agrees on
// status before each collective, so an error on one rank is raised on every rank. The GIL is
// released meanwhile (another Python thread may drive MPI through mpi4py).
#include <mpi.h>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "bindings.hpp"
#include "nufftmp/dist.hpp"

namespace nufftmp::python {

namespace {

using addr = std::uintptr_t;

// MPI_Comm is a pointer in Open MPI and an int in MPICH; mpi4py gives its value as an integer.
// (A template, so that only the branch of this MPI's type is compiled.)
template <typename Comm>
Comm handle_to(addr h) {
  if constexpr (std::is_pointer_v<Comm>) {
    return reinterpret_cast<Comm>(h);
  } else {
    return static_cast<Comm>(h);
  }
}
MPI_Comm comm_from_handle(addr h) { return handle_to<MPI_Comm>(h); }

template <typename T>
void bind_dist_plan_t(nb::module_& m, const char* suffix) {
  using P = dist::DistPlan<T>;
  using C = std::complex<T>;
  using namespace nb::literals;
  const std::string name = std::string("DistPlan") + suffix;
  nb::class_<P>(m, name.c_str())
      .def(nb::init<dist::Context&, int, const std::vector<std::int64_t>&, int, int, double,
                    const Options&, const dist::DistOptions&>(),
           "ctx"_a, "type"_a, "modes"_a, "isign"_a, "ntransf"_a, "tol"_a, "opts"_a, "dopts"_a,
           nb::keep_alive<1, 2>(), nb::call_guard<nb::gil_scoped_release>())
      .def("set_points",
           [](P& p, std::int64_t M, addr x, addr y, addr z) {
             p.set_points(M, reinterpret_cast<const T*>(x), reinterpret_cast<const T*>(y),
                          reinterpret_cast<const T*>(z));
           },
           nb::call_guard<nb::gil_scoped_release>())
      .def("set_points_host",
           [](P& p, std::int64_t M, addr x, addr y, addr z) {
             p.set_points_host(M, reinterpret_cast<const T*>(x), reinterpret_cast<const T*>(y),
                               reinterpret_cast<const T*>(z));
           },
           nb::call_guard<nb::gil_scoped_release>())
      .def("execute",
           [](P& p, addr c, addr f) { p.execute(reinterpret_cast<C*>(c), reinterpret_cast<C*>(f)); },
           nb::call_guard<nb::gil_scoped_release>())
      .def("execute_host",
           [](P& p, addr c, addr f) {
             p.execute_host(reinterpret_cast<C*>(c), reinterpret_cast<C*>(f));
           },
           nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("num_points_local", &P::num_points_local)
      .def_prop_ro("num_points_total", &P::num_points_total)
      .def_prop_ro("local_plan", &P::local_plan, nb::rv_policy::reference_internal)
      .def("last_timings", [](const P& p) {
        const auto t = p.last_timings();
        nb::dict d;
        d["compute_ms"] = t.compute_ms;
        d["comm_ms"] = t.comm_ms;
        d["total_ms"] = t.total_ms;
        return d;
      });
}

}  // namespace

void bind_dist(nb::module_& m) {
  using namespace nb::literals;
  nb::enum_<dist::CommBackend>(m, "CommBackend")
      .value("Auto", dist::CommBackend::Auto)
      .value("Nccl", dist::CommBackend::Nccl)
      .value("Mpi", dist::CommBackend::Mpi)
      .value("MpiHost", dist::CommBackend::MpiHost);
  nb::enum_<dist::Reduction>(m, "Reduction")
      .value("AllReduce", dist::Reduction::AllReduce)
      .value("Reduce", dist::Reduction::Reduce);

  nb::class_<dist::ContextOptions>(m, "ContextOptions")
      .def(nb::init<>())
      .def_rw("backend", &dist::ContextOptions::backend)
      .def_rw("device", &dist::ContextOptions::device)
      .def_rw("comm", &dist::ContextOptions::comm);
  nb::class_<dist::DistOptions>(m, "DistOptions")
      .def(nb::init<>())
      .def_rw("reduction", &dist::DistOptions::reduction)
      .def_rw("root", &dist::DistOptions::root)
      .def_rw("modes_on_all", &dist::DistOptions::modes_on_all)
      .def_rw("reduce_batch", &dist::DistOptions::reduce_batch)
      .def_rw("rebalance", &dist::DistOptions::rebalance);

  nb::class_<dist::Context>(m, "Context")
      .def("__init__",
           [](dist::Context* self, addr handle, const dist::ContextOptions& o) {
             new (self) dist::Context(comm_from_handle(handle), o);
           },
           "comm_handle"_a, "opts"_a, nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("rank", &dist::Context::rank)
      .def_prop_ro("size", &dist::Context::size)
      .def_prop_ro("local_rank", &dist::Context::local_rank)
      .def_prop_ro("backend", &dist::Context::backend)
      .def_prop_ro("comm_backend", &dist::Context::comm_backend)
      .def_prop_ro("device", &dist::Context::device)
      .def_prop_ro("stream", [](const dist::Context& c) { return reinterpret_cast<addr>(c.stream()); })
      .def_prop_ro("gpu_shared", &dist::Context::gpu_shared)
      .def("binding", &dist::Context::binding);

  m.def("comm_backend_name", [](dist::CommBackend c) { return dist::comm_backend_name(c); });
  bind_dist_plan_t<float>(m, "F32");
  bind_dist_plan_t<double>(m, "F64");
}

}  // namespace nufftmp::python
