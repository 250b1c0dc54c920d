// EWALD_HD marks the few functions shared by the host (OpenMP) and the CUDA kernels of the
// real-space part and the mode array, so that both run the same arithmetic from one source.
#pragma once

#if defined(__CUDACC__)
#define EWALD_HD __host__ __device__
#else
#define EWALD_HD
#endif
