// nufftmp._core: the extension module. What this build contains is told by HAS_* flags so the
// Python package can say "not built in" instead of failing on a missing attribute.
#include "bindings.hpp"

NB_MODULE(_core, m) {
  using namespace nufftmp::python;
  m.doc() = "nufftmp C++ bindings (use the nufftmp package, not this module)";
  bind_errors(m);
  bind_options(m);
  bind_plan(m);
  bind_device_streams(m);
#ifdef NUFFTMP_PY_DIST
  bind_dist(m);
  m.attr("HAS_DIST") = true;
#else
  m.attr("HAS_DIST") = false;
#endif
#ifdef NUFFTMP_PY_MTIP
  bind_mtip(m);
  m.attr("HAS_MTIP") = true;
#else
  m.attr("HAS_MTIP") = false;
#endif
#ifdef NUFFTMP_PY_CUDA
  m.attr("HAS_CUDA") = true;
#else
  m.attr("HAS_CUDA") = false;
#endif
}
