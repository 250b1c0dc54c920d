// The per-instruction-set entry points behind spread()/interp(): one namespace per variant,
// each defined by one isa_*.cpp file. Listed once, by the macro below.
#pragma once

#include "cpu/spread_interp.hpp"

#define NUFFTMP_CPU_DECLARE_ISA(ns)                                                            \
  namespace nufftmp::detail::cpu::ns {                                                         \
  template <typename T>                                                                        \
  void spread_boxes(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,                 \
                    const GridShape<T>& shape, const std::complex<T>* c, int nvec, T* grid,    \
                    std::int64_t box_reals, int nthreads, std::vector<std::vector<T>>& scratch);                       \
  template <typename T>                                                                        \
  void interp_points(const SortedPoints<T>& pts, const KernelEvaluator<T>& ker,                \
                     const GridShape<T>& shape, const T* grid, int nvec, std::complex<T>* c,   \
                     int nthreads, std::vector<std::vector<T>>& scratch);                      \
  }

NUFFTMP_CPU_DECLARE_ISA(generic)
#if defined(NUFFTMP_CPU_X86_VARIANTS)
NUFFTMP_CPU_DECLARE_ISA(avx2)
NUFFTMP_CPU_DECLARE_ISA(avx512)
#endif
