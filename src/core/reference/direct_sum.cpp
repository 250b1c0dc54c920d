// The oracle: exact NUDFT sums, kept simple enough to trust. Phases are formed in long double
// and reduced modulo 2 pi before the (double) sincos, so the error does not grow with |k x|;
// sums are taken in double over short blocks and the block sums added in long double.
#include "nufftmp/reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "common/grid.hpp"

namespace nufftmp::reference {

namespace {

constexpr long double kTwoPiL = 6.283185307179586476925286766559005768L;

constexpr long double kInvTwoPiL = 0.159154943091895335768883763372514362L;

// exp(i * phase) with the phase reduced to [-pi, pi] in long double first (exact enough for
// |phase| up to ~1e9: the reduction keeps 64 bits of the product k x).
inline std::complex<double> expi(long double phase) {
  const long double r = phase - kTwoPiL * std::floor(phase * kInvTwoPiL + 0.5L);
  const double rd = static_cast<double>(r);
  return {std::cos(rd), std::sin(rd)};
}

// Per-axis mode numbers of flat indices 0..N-1 under modeord.
std::vector<std::int64_t> axis_modes(std::int64_t N, int modeord) {
  std::vector<std::int64_t> k(static_cast<size_t>(N));
  for (std::int64_t i = 0; i < N; ++i) k[i] = mode_of_index(i, N, modeord);
  return k;
}

constexpr std::int64_t kBlock = 256;  // terms summed in double before the long double add

// out[i] = sum_j (term of point j for output i), points in parallel. make_adder() gives each
// thread its callable add(j, c_j, blk), which adds point j's term to blk[i] for every output;
// each thread sums kBlock points in double, then adds them to its long double totals.
template <typename T, typename MakeAdder>
std::vector<std::complex<double>> sum_over_points(std::int64_t M, std::int64_t nout,
                                                  const std::complex<T>* c,
                                                  const MakeAdder& make_adder) {
  const auto n = static_cast<size_t>(nout);
  std::vector<long double> tot_re(n, 0), tot_im(n, 0);
#pragma omp parallel
  {
    auto add = make_adder();
    std::vector<std::complex<double>> blk(n);
    std::vector<long double> acc_re(n, 0), acc_im(n, 0);
    auto flush = [&] {
      for (size_t i = 0; i < n; ++i) {
        acc_re[i] += blk[i].real();
        acc_im[i] += blk[i].imag();
        blk[i] = 0;
      }
    };
    std::int64_t since_flush = 0;
#pragma omp for schedule(static)
    for (std::int64_t j = 0; j < M; ++j) {
      add(j, std::complex<double>(c[j]), blk.data());
      if (++since_flush == kBlock) {
        flush();
        since_flush = 0;
      }
    }
    flush();
#pragma omp critical(nufftmp_reference_sum)
    for (size_t i = 0; i < n; ++i) {
      tot_re[i] += acc_re[i];
      tot_im[i] += acc_im[i];
    }
  }
  std::vector<std::complex<double>> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = {static_cast<double>(tot_re[i]), static_cast<double>(tot_im[i])};
  return out;
}

// One exponential per point and output: kout[3 i + d] is output i's frequency (isign included).
template <typename T>
std::vector<std::complex<double>> sum_per_output(int dim, std::int64_t M, const T* const* coords,
                                                 const std::complex<T>* c,
                                                 const std::vector<long double>& kout) {
  const auto nout = static_cast<std::int64_t>(kout.size() / 3);
  return sum_over_points(M, nout, c, [&] {
    return [&](std::int64_t j, std::complex<double> cj, std::complex<double>* blk) {
      long double xj[3] = {0, 0, 0};
      for (int d = 0; d < dim; ++d) xj[d] = static_cast<long double>(coords[d][j]);
      for (std::int64_t i = 0; i < nout; ++i) {
        const long double* k = &kout[3 * i];
        blk[i] += cj * expi(k[0] * xj[0] + k[1] * xj[1] + k[2] * xj[2]);
      }
    };
  });
}

}  // namespace

std::int64_t mode_of_index(std::int64_t i, std::int64_t N, int modeord) {
  return detail::mode_of_output_index(i, N, modeord);
}

template <typename T>
std::vector<std::complex<double>> type1(int dim, std::int64_t M, const T* x, const T* y,
                                        const T* z, const std::complex<T>* c, int isign,
                                        const std::int64_t N[3], int modeord,
                                        const std::vector<std::int64_t>& idx) {
  const T* coords[3] = {x, y, z};
  const auto nout = static_cast<std::int64_t>(idx.size());
  // The distinct modes used per axis, and each output's position in those lists: per point,
  // exp(i k x) is then one table entry per axis and one complex product per output.
  std::vector<std::int64_t> used[3], pos[3];
  for (int d = 0; d < 3; ++d) pos[d].assign(idx.size(), 0);
  std::int64_t stride = 1;
  for (int d = 0; d < dim; ++d) {
    std::vector<std::int64_t> slot(static_cast<size_t>(N[d]), -1);
    for (std::int64_t i = 0; i < nout; ++i) {
      const std::int64_t a = (idx[i] / stride) % N[d];
      if (slot[a] < 0) {
        slot[a] = static_cast<std::int64_t>(used[d].size());
        used[d].push_back(mode_of_index(a, N[d], modeord));
      }
      pos[d][i] = slot[a];
    }
    stride *= N[d];
  }
  for (int d = dim; d < 3; ++d) used[d] = {0};
  // Per point, either one table of exp(i k x) per axis over the modes used (many outputs), or
  // one exponential per output (few outputs, e.g. a sample for an error estimate).
  const size_t table_size = used[0].size() + used[1].size() + used[2].size();
  const bool per_output = static_cast<size_t>(nout) <= table_size;
  std::vector<long double> kout(static_cast<size_t>(3 * nout), 0.0L);
  for (std::int64_t i = 0; i < nout; ++i)
    for (int d = 0; d < dim; ++d)
      kout[3 * i + d] = static_cast<long double>(used[d][pos[d][i]]) * isign;
  if (per_output) return sum_per_output(dim, M, coords, c, kout);
  return sum_over_points(M, nout, c, [&] {
    std::array<std::vector<std::complex<double>>, 3> tab;  // per thread
    for (int d = 0; d < 3; ++d) tab[d].assign(used[d].size(), 1.0);
    return [&, tab](std::int64_t j, std::complex<double> cj, std::complex<double>* blk) mutable {
      for (int d = 0; d < dim; ++d) {
        const long double xd = static_cast<long double>(coords[d][j]) * isign;
        for (size_t u = 0; u < used[d].size(); ++u)
          tab[d][u] = expi(static_cast<long double>(used[d][u]) * xd);
      }
      for (std::int64_t i = 0; i < nout; ++i)
        blk[i] += cj * (tab[0][pos[0][i]] * tab[1][pos[1][i]] * tab[2][pos[2][i]]);
    };
  });
}

template <typename T>
std::vector<std::complex<double>> type2(int dim, const T* x, const T* y, const T* z,
                                        const std::complex<T>* f, int isign,
                                        const std::int64_t N[3], int modeord,
                                        const std::vector<std::int64_t>& idx) {
  const T* coords[3] = {x, y, z};
  std::int64_t Nd[3] = {1, 1, 1};
  for (int d = 0; d < dim; ++d) Nd[d] = N[d];
  std::vector<std::int64_t> kd[3];
  for (int d = 0; d < 3; ++d) kd[d] = axis_modes(Nd[d], modeord);
  const auto nout = static_cast<std::int64_t>(idx.size());
  std::vector<std::complex<double>> out(idx.size());
#pragma omp parallel
  {
    // exp(isign i k x) per axis, each entry from its own reduced phase (no recurrence drift).
    std::vector<std::complex<double>> e[3];
    for (int d = 0; d < 3; ++d) e[d].resize(static_cast<size_t>(Nd[d]));
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < nout; ++i) {
      const std::int64_t j = idx[i];
      for (int d = 0; d < 3; ++d) {
        const long double xd = d < dim ? static_cast<long double>(coords[d][j]) : 0.0L;
        for (std::int64_t m = 0; m < Nd[d]; ++m)
          e[d][m] = expi(static_cast<long double>(isign) * kd[d][m] * xd);
      }
      long double re = 0, im = 0;
      for (std::int64_t i3 = 0; i3 < Nd[2]; ++i3)
        for (std::int64_t i2 = 0; i2 < Nd[1]; ++i2) {
          const std::complex<T>* row = f + (i3 * Nd[1] + i2) * Nd[0];
          const std::complex<double> t = e[2][i3] * e[1][i2];
          for (std::int64_t b0 = 0; b0 < Nd[0]; b0 += kBlock) {
            const std::int64_t b1 = std::min(Nd[0], b0 + kBlock);
            double sr = 0, si = 0;
            for (std::int64_t i1 = b0; i1 < b1; ++i1) {
              const double fr = row[i1].real(), fi = row[i1].imag();
              const double er = e[0][i1].real(), ei = e[0][i1].imag();
              sr += fr * er - fi * ei;
              si += fr * ei + fi * er;
            }
            re += static_cast<long double>(t.real()) * sr - static_cast<long double>(t.imag()) * si;
            im += static_cast<long double>(t.real()) * si + static_cast<long double>(t.imag()) * sr;
          }
        }
      out[i] = {static_cast<double>(re), static_cast<double>(im)};
    }
  }
  return out;
}

template <typename T>
std::vector<std::complex<double>> type3(int dim, std::int64_t M, const T* x, const T* y,
                                        const T* z, const std::complex<T>* c, int isign,
                                        const T* s, const T* t, const T* u,
                                        const std::vector<std::int64_t>& idx) {
  const T* coords[3] = {x, y, z};
  const T* freqs[3] = {s, t, u};
  const auto nout = static_cast<std::int64_t>(idx.size());
  std::vector<long double> kout(static_cast<size_t>(3 * nout), 0.0L);
  for (std::int64_t i = 0; i < nout; ++i)
    for (int d = 0; d < dim; ++d)
      kout[3 * i + d] = static_cast<long double>(freqs[d][idx[i]]) * isign;
  return sum_per_output(dim, M, coords, c, kout);
}

template <typename T>
double rel_l2_error(const std::vector<std::complex<double>>& exact, const std::complex<T>* approx,
                    const std::vector<std::int64_t>& idx) {
  long double num = 0, den = 0;
  for (size_t i = 0; i < idx.size(); ++i) {
    const std::complex<double> a(approx[idx[i]]);
    num += std::norm(a - exact[i]);
    den += std::norm(exact[i]);
  }
  // All-zero truth (e.g. M = 0): report the absolute error instead of dividing by zero.
  if (den == 0) return static_cast<double>(std::sqrt(num));
  return static_cast<double>(std::sqrt(num / den));
}

#define NUFFTMP_REFERENCE_INSTANTIATE(T)                                                       \
  template std::vector<std::complex<double>> type1<T>(                                        \
      int, std::int64_t, const T*, const T*, const T*, const std::complex<T>*, int,            \
      const std::int64_t[3], int, const std::vector<std::int64_t>&);                           \
  template std::vector<std::complex<double>> type2<T>(                                        \
      int, const T*, const T*, const T*, const std::complex<T>*, int, const std::int64_t[3],   \
      int, const std::vector<std::int64_t>&);                                                  \
  template std::vector<std::complex<double>> type3<T>(                                        \
      int, std::int64_t, const T*, const T*, const T*, const std::complex<T>*, int, const T*,  \
      const T*, const T*, const std::vector<std::int64_t>&);                                   \
  template double rel_l2_error<T>(const std::vector<std::complex<double>>&,                    \
                                  const std::complex<T>*, const std::vector<std::int64_t>&);
NUFFTMP_REFERENCE_INSTANTIATE(float)
NUFFTMP_REFERENCE_INSTANTIATE(double)
#undef NUFFTMP_REFERENCE_INSTANTIATE

}  // namespace nufftmp::reference
