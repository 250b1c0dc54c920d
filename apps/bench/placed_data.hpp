// A benchmark's inputs in the plan's memory space: the host arrays themselves for a host plan,
// or device copies (owned here) for a device plan. Shared by the single and distributed runs.
#pragma once

#include <complex>
#include <memory>
#include <vector>

#include "bench_data.hpp"
#include "device_memory.hpp"

namespace nufftmp::bench {

template <typename T>
struct Placed {
  std::unique_ptr<DeviceBuffer> x, y, z, s, t, u, c, f;
  const T* px = nullptr;
  const T* py = nullptr;
  const T* pz = nullptr;
  const T* ps = nullptr;  // type 3 targets
  const T* pt = nullptr;
  const T* pu = nullptr;
  std::complex<T>* pc = nullptr;  // type 1 input; type 2 output (contents irrelevant)
  std::complex<T>* pf = nullptr;
};

namespace detail {
// v's data, or a device copy of it held by buf; nullptr for an empty v (unused axis).
template <typename V>
V* put(std::vector<V>& v, bool device, std::unique_ptr<DeviceBuffer>& buf) {
  if (v.empty()) return nullptr;
  if (!device) return v.data();
  buf = device_alloc(v.size() * sizeof(V));
  buf->copy_from_host(v.data(), v.size() * sizeof(V));
  return static_cast<V*>(buf->data());
}
}  // namespace detail

template <typename T>
Placed<T> place(BenchData<T>& d, bool device) {
  Placed<T> p;
  p.px = detail::put(d.x, device, p.x);
  p.py = detail::put(d.y, device, p.y);
  p.pz = detail::put(d.z, device, p.z);
  p.ps = detail::put(d.s, device, p.s);
  p.pt = detail::put(d.t, device, p.t);
  p.pu = detail::put(d.u, device, p.u);
  p.pc = detail::put(d.c, device, p.c);
  p.pf = detail::put(d.f, device, p.f);
  return p;
}

}  // namespace nufftmp::bench
