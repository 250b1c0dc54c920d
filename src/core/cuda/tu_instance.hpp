// One translation unit per precision and dimension for the kernel files. CUDA loads a whole
// module - one .cu file's kernels - at the first use of any of them (lazy loading), at about
// 1 ms per MB of code on an H200 (docs/data/module_load_h200_2026-12-02.txt), and a file with
// every width, dimension and precision held 1-7 MB: a plan's first use of each method paid for
// all of it (a first plan 12-24 ms over a steady one in loading alone). CMakeLists.txt compiles
// each kernel file once per (NUFFTMP_TU_REAL, NUFFTMP_TU_DIM) through a generated wrapper that
// defines the two and includes the file; the file instantiates its entry points for that pair
// only, and the run-time switch over the dimension lives in host code (launch_dims.cpp), which
// sees only their declarations.
#pragma once

#if !defined(NUFFTMP_TU_REAL) || !defined(NUFFTMP_TU_DIM)
#error "a kernel file is compiled through its per-precision, per-dimension wrapper (CMakeLists.txt)"
#endif

// An execute entry point fn##_dim<T, D>(const SpreadLaunch<T>&, const KernelCoeffs<T>&) for
// this translation unit's precision and dimension.
#define NUFFTMP_INSTANTIATE_LAUNCH(fn)                                                 \
  template void fn<NUFFTMP_TU_REAL, NUFFTMP_TU_DIM>(const SpreadLaunch<NUFFTMP_TU_REAL>&, \
                                                    const KernelCoeffs<NUFFTMP_TU_REAL>&)
