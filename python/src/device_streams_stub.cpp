// Without the CUDA engine there are no device arrays to order or locate.
#include "bindings.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::python {

void bind_device_streams(nb::module_& m) {
  m.def("stream_wait", [](int, std::uintptr_t, std::uintptr_t) {
    throw Error(ErrorCode::NotAvailable, "this nufftmp was built without the CUDA engine");
  });
  m.def("pointer_device", [](std::uintptr_t) { return -1; });
  m.def("current_device", [] { return -1; });
}

}  // namespace nufftmp::python
