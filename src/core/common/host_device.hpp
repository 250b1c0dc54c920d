// Lets the small inline helpers of common/ be called from CUDA kernels too.
#pragma once
#if defined(__CUDACC__)
#define NUFFTMP_HD __host__ __device__ __forceinline__
#else
#define NUFFTMP_HD inline
#endif
