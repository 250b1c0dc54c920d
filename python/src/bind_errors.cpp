// nufftmp::Error -> the Python exception class of its code (nufftmp._errors, which derives
// each from the matching built-in: ValueError for bad arguments and points, MemoryError for
// out of memory, RuntimeError for the rest), with the C++ message unchanged.
#include <nanobind/nanobind.h>

#include <exception>

#include "bindings.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::python {

void bind_errors(nb::module_& m) {
  nb::enum_<ErrorCode>(m, "ErrorCode")
      .value("InvalidArgument", ErrorCode::InvalidArgument)
      .value("BadPoints", ErrorCode::BadPoints)
      .value("ToleranceTooSmall", ErrorCode::ToleranceTooSmall)
      .value("OutOfMemory", ErrorCode::OutOfMemory)
      .value("NotAvailable", ErrorCode::NotAvailable)
      .value("CudaFailure", ErrorCode::CudaFailure)
      .value("CufftFailure", ErrorCode::CufftFailure)
      .value("FftwFailure", ErrorCode::FftwFailure)
      .value("MpiFailure", ErrorCode::MpiFailure)
      .value("NcclFailure", ErrorCode::NcclFailure)
      .value("RemoteFailure", ErrorCode::RemoteFailure)
      .value("IoFailure", ErrorCode::IoFailure)
      .value("Internal", ErrorCode::Internal);
  m.def("error_code_name", [](ErrorCode c) { return error_code_name(c); });

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      // Translators run with the GIL held; the import is a dictionary look-up after the first.
      try {
        nb::object cls = nb::module_::import_("nufftmp._errors")
                             .attr("class_for_code")(nb::cast(e.code()));
        PyErr_SetString(cls.ptr(), e.what());
      } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
      }
    }
  });
}

}  // namespace nufftmp::python
