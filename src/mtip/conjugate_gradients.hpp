// Preconditioned conjugate gradients for the merge's normal equations (A + lambda I) x = b,
// A Hermitian positive semi-definite, written once for the host vectors (merging.cpp) and the
// device ones (gpu/merger_gpu.cpp). Ops owns the six vectors, named by CgVec, and the
// operations on them:
//   void   apply(CgVec in, CgVec out)         out = (A + lambda I) in
//   bool   preconditioned() const
//   void   precondition(CgVec in, CgVec out)  out = C^-1 in (only when preconditioned())
//   double dot(CgVec a, CgVec b)              Re(a^H b) (the operator is Hermitian: the
//                                             real part suffices)
//   void   copy(CgVec from, CgVec to)
//   void   axpy(double a, CgVec x, CgVec y)   y += a x
//   void   xpby(CgVec x, double b, CgVec y)   y = x + b y
// On entry b holds the right-hand side and x the start (zero for a cold start).
#pragma once

#include <cmath>

namespace nufftmp::mtip::detail {

enum class CgVec { B, X, R, P, AP, Z };

struct CgOutcome {
  int iterations = 0;
  double residual = 0;  // relative: ||b - (A + lambda I) x|| / ||b|| (0 when b = 0)
};

template <typename Ops>
CgOutcome conjugate_gradients(Ops& v, bool warm_start, int max_iter, double tol) {
  using V = CgVec;
  v.copy(V::B, V::R);
  if (warm_start) {
    v.apply(V::X, V::AP);
    v.axpy(-1.0, V::AP, V::R);  // r = b - (A + lambda I) x
  }
  const double bnorm = std::sqrt(v.dot(V::B, V::B));
  double rr = v.dot(V::R, V::R);
  int it = 0;
  if (bnorm > 0) {
    const auto precondition = [&] {  // z = C^-1 r; returns r.z
      if (!v.preconditioned()) {
        v.copy(V::R, V::Z);
        return rr;  // r.z = r.r, bit for bit
      }
      v.precondition(V::R, V::Z);
      return v.dot(V::R, V::Z);
    };
    double rz = precondition();
    v.copy(V::Z, V::P);
    while (it < max_iter && std::sqrt(rr) > tol * bnorm) {
      v.apply(V::P, V::AP);
      const double pAp = v.dot(V::P, V::AP);
      if (!(pAp > 0)) break;  // breakdown: p is (numerically) in the null space
      const double alpha = rz / pAp;
      v.axpy(alpha, V::P, V::X);
      v.axpy(-alpha, V::AP, V::R);
      rr = v.dot(V::R, V::R);
      ++it;
      if (std::sqrt(rr) <= tol * bnorm) break;
      const double rz_new = precondition();
      const double beta = rz_new / rz;
      rz = rz_new;
      v.xpby(V::Z, beta, V::P);
    }
  }
  return {it, bnorm > 0 ? std::sqrt(rr) / bnorm : 0.0};
}

}  // namespace nufftmp::mtip::detail
