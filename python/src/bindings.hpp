// The pieces of nufftmp._core, one concern per file (bind_*.cpp), put together by module.cpp.
// The bindings are thin: array kinds, shapes and the FINUFFT-style conventions live in the
// Python package (python/nufftmp); here the C++ objects are exposed with raw data pointers
// (host or device addresses as integers), which every array library can give cheaply.
#pragma once

#include <nanobind/nanobind.h>

namespace nufftmp::python {

namespace nb = nanobind;

void bind_errors(nb::module_& m);
void bind_options(nb::module_& m);
void bind_plan(nb::module_& m);
void bind_device_streams(nb::module_& m);
#ifdef NUFFTMP_PY_DIST
void bind_dist(nb::module_& m);
#endif
#ifdef NUFFTMP_PY_MTIP
void bind_mtip(nb::module_& m);
#endif

}  // namespace nufftmp::python
