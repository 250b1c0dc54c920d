// The oracle: direct sums (exact NUDFT) in double precision with long double accumulation,
// OpenMP-parallel. For tests and error estimates in the apps; O(M * prod(N)) work.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace nufftmp::reference {

// Type 1 at selected modes: out[i] = sum_j c[j] exp(isign i k_i . x_j), where mode i is the
// flat output index idx[i] of an array with modes N (N[d] = 1 for unused dims) in the given
// modeord. x/y/z may be null past dim.
template <typename T>
std::vector<std::complex<double>> type1(int dim, std::int64_t M, const T* x, const T* y,
                                        const T* z, const std::complex<T>* c, int isign,
                                        const std::int64_t N[3], int modeord,
                                        const std::vector<std::int64_t>& idx);

// Type 2 at selected targets: out[i] = sum_k f[k] exp(isign i k . x_{idx[i]}).
template <typename T>
std::vector<std::complex<double>> type2(int dim, const T* x, const T* y, const T* z,
                                        const std::complex<T>* f, int isign,
                                        const std::int64_t N[3], int modeord,
                                        const std::vector<std::int64_t>& idx);

// Type 3 at selected targets: out[i] = sum_j c[j] exp(isign i s_k . x_j), k = idx[i], for the
// M sources (x, y, z) and the targets (s, t, u); arrays past dim may be null.
template <typename T>
std::vector<std::complex<double>> type3(int dim, std::int64_t M, const T* x, const T* y,
                                        const T* z, const std::complex<T>* c, int isign,
                                        const T* s, const T* t, const T* u,
                                        const std::vector<std::int64_t>& idx);

// Relative l2 error of approx[idx[i]] against exact[i].
template <typename T>
double rel_l2_error(const std::vector<std::complex<double>>& exact, const std::complex<T>* approx,
                    const std::vector<std::int64_t>& idx);

// The signed mode k (per dim) of flat index i in an axis of length N under modeord.
std::int64_t mode_of_index(std::int64_t i, std::int64_t N, int modeord);

}  // namespace nufftmp::reference
