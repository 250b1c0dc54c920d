// M-TIP's slicing (Slicer: a 3D type 2 of the model at this rank's slice points) and merging
// (Merger: the regularised least-squares inversion of slicing over every rank's points), with
// the geometry that makes slice points. Host memory (the C++ stages take host arrays); data as
// addresses, results of the geometry as numpy arrays. Names come from mtip_adapter.hpp only.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "mtip_adapter.hpp"

namespace nufftmp::python {

namespace {

using addr = std::uintptr_t;
using Array1 = nb::ndarray<nb::numpy, double, nb::ndim<1>>;

// A numpy array that owns the vector's storage.
Array1 to_numpy(std::vector<double>&& v) {
  auto* owned = new std::vector<double>(std::move(v));
  nb::capsule free_it(owned, [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
  return Array1(owned->data(), {owned->size()}, free_it);
}

nb::dict report_dict(const mtip_api::MergeReport& r) {
  nb::dict d;
  d["iterations"] = r.iterations;
  d["residual"] = r.residual;
  d["kernel_ms"] = r.kernel_ms;
  d["rhs_ms"] = r.rhs_ms;
  d["cg_ms"] = r.cg_ms;
  d["nufft_ms"] = r.nufft_ms;
  return d;
}

template <typename T>
void bind_stages_t(nb::module_& m, const char* suffix) {
  using S = mtip_api::Slicer<T>;
  using G = mtip_api::Merger<T>;
  using C = std::complex<T>;
  using namespace nb::literals;
  nb::class_<S>(m, (std::string("Slicer") + suffix).c_str())
      .def(nb::init<std::int64_t, double, const Options&>(), "M"_a, "tol"_a, "opts"_a,
           nb::call_guard<nb::gil_scoped_release>())
      .def("set_points",
           [](S& s, std::int64_t n, addr x, addr y, addr z) {
             s.set_points(n, reinterpret_cast<const T*>(x), reinterpret_cast<const T*>(y),
                          reinterpret_cast<const T*>(z));
           },
           nb::call_guard<nb::gil_scoped_release>())
      .def("slice",
           [](S& s, addr model, addr values) {
             s.slice(reinterpret_cast<const C*>(model), reinterpret_cast<C*>(values));
           },
           nb::call_guard<nb::gil_scoped_release>());

  nb::class_<G>(m, (std::string("Merger") + suffix).c_str())
      .def(nb::init<dist::Context&, std::int64_t, const mtip_api::MergeOptions&, const Options&>(),
           "ctx"_a, "M"_a, "mopts"_a, "opts"_a, nb::keep_alive<1, 2>(),
           nb::call_guard<nb::gil_scoped_release>())
      .def("set_points",
           [](G& g, std::int64_t n, addr x, addr y, addr z, addr w) {
             g.set_points(n, reinterpret_cast<const T*>(x), reinterpret_cast<const T*>(y),
                          reinterpret_cast<const T*>(z), reinterpret_cast<const T*>(w));
           },
           nb::call_guard<nb::gil_scoped_release>())
      // start: M^3 doubles or 0 (zero start); out: M^3 doubles (the solution, centred order).
      .def("solve",
           [](G& g, addr data, addr start, addr out, std::int64_t n_ac) {
             std::vector<double> ac;
             mtip_api::MergeReport r;
             {
               nb::gil_scoped_release release;
               if (start) {
                 const auto* s = reinterpret_cast<const double*>(start);
                 ac.assign(s, s + n_ac);
               }
               r = g.solve(reinterpret_cast<const T*>(data), ac);
               if (static_cast<std::int64_t>(ac.size()) == n_ac)
                 std::memcpy(reinterpret_cast<double*>(out), ac.data(), sizeof(double) * ac.size());
             }
             if (static_cast<std::int64_t>(ac.size()) != n_ac)
               throw nb::value_error("merge: solution size differs from the output array's");
             return report_dict(r);
           })
      .def_prop_ro("weight_sum", &G::weight_sum);

  m.def((std::string("slice_points_") + suffix).c_str(),
        [](addr positions, std::int64_t npix, addr quats, std::int64_t n_orient, double scale,
           addr x, addr y, addr z) {
          const auto* p = reinterpret_cast<const double*>(positions);
          const std::vector<double> pos(p, p + 3 * npix);
          const auto* q = reinterpret_cast<const double*>(quats);
          std::vector<mtip_api::Quaternion> orient(static_cast<std::size_t>(n_orient));
          for (std::int64_t o = 0; o < n_orient; ++o)
            orient[o] = {q[4 * o], q[4 * o + 1], q[4 * o + 2], q[4 * o + 3]};
          nb::gil_scoped_release release;
          mtip_api::slice_points<T>(pos, orient.data(), n_orient, scale, reinterpret_cast<T*>(x),
                                    reinterpret_cast<T*>(y), reinterpret_cast<T*>(z));
        });
}

}  // namespace

void bind_mtip(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<mtip_api::MergeOptions>(m, "MergeOptions")
      .def(nb::init<>())
      .def_rw("lambda_", &mtip_api::MergeOptions::lambda)
      .def_rw("max_iter", &mtip_api::MergeOptions::max_iter)
      .def_rw("tol", &mtip_api::MergeOptions::tol)
      .def_rw("nufft_tol", &mtip_api::MergeOptions::nufft_tol)
      .def_rw("precondition", &mtip_api::MergeOptions::precondition);
  nb::class_<mtip_api::Detector>(m, "Detector")
      .def(nb::init<>())
      .def_rw("nx", &mtip_api::Detector::nx)
      .def_rw("ny", &mtip_api::Detector::ny)
      .def_rw("pixel_size", &mtip_api::Detector::pixel_size)
      .def_rw("distance", &mtip_api::Detector::distance)
      .def_rw("wavelength", &mtip_api::Detector::wavelength);

  // [3 * ny * nx] (layout [3, ny, nx]), 1/Angstrom.
  m.def("pixel_positions_reciprocal", [](const mtip_api::Detector& d) {
    return to_numpy(mtip_api::pixel_positions_reciprocal(d));
  });
  m.def("reciprocal_scale", [](addr positions, std::int64_t npix) {
    const auto* p = reinterpret_cast<const double*>(positions);
    return mtip_api::reciprocal_scale(std::vector<double>(p, p + 3 * npix));
  });
  // [4 * n]: (w, x, y, z) per orientation.
  m.def("reference_orientations", [](std::int64_t n) {
    const auto q = mtip_api::reference_orientations(n);
    std::vector<double> flat;
    flat.reserve(4 * q.size());
    for (const auto& o : q) flat.insert(flat.end(), {o.w, o.x, o.y, o.z});
    return to_numpy(std::move(flat));
  });
  bind_stages_t<float>(m, "F32");
  bind_stages_t<double>(m, "F64");
}

}  // namespace nufftmp::python
