// Vectors of the instruction set's register width (GCC/Clang vector extensions) for the
// x-rows of the spreading and interpolation loops: 64 bytes (a zmm register) in the AVX-512
// build, 32 (ymm) in the AVX2 build, 16 (xmm) in the generic one; the arithmetic is written
// once. (One 64-byte type for every build, which GCC splits into ymm or xmm halves, held its
// arrays in memory on AVX2: the Horner accumulators and the spreading rows went through the
// stack piece by piece, and the AVX2 build ran slower than the SSE2 one.) Loads and stores go
// through memcpy (no aliasing or alignment assumptions beyond what the caller states), which
// compiles to one move.
//
// Like kernel_eval.hpp, the helpers live in the namespace NUFFTMP_CPU_ISA: each isa_*.cpp
// compiles its own copy for its instruction set.
#pragma once

#include <cstring>
#include <type_traits>

#ifndef NUFFTMP_CPU_ISA
#define NUFFTMP_CPU_ISA generic
#endif

namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA {

#if defined(__AVX512F__)
constexpr int kVecBytes = 64;
#elif defined(__AVX__)
constexpr int kVecBytes = 32;
#else
constexpr int kVecBytes = 16;
#endif
// Vector registers of the instruction set: kernel_eval.hpp's Horner chains and RowVec's row
// accumulators are sized to them.
#if defined(__AVX512F__)
constexpr int kVecRegisters = 32;
#else
constexpr int kVecRegisters = 16;
#endif

template <typename T>
struct Vec {
  typedef T type __attribute__((vector_size(kVecBytes)));
  static constexpr int lanes = kVecBytes / sizeof(T);  // reals per vector
  static constexpr int cells = lanes / 2;              // interleaved complex cells per vector
};

template <typename T>
using vec_t = typename Vec<T>::type;

// Whole vectors, by reference so that no vector crosses a function boundary by value (the
// ABI of a vector argument differs between the instruction sets).
template <typename T>
inline void vload(vec_t<T>& v, const T* p) {
  std::memcpy(&v, p, sizeof(v));
}
template <typename T>
inline void vstore(T* p, const vec_t<T>& v) {
  std::memcpy(p, &v, sizeof(v));
}

// N consecutive reals held as whole vectors plus a tail of power-of-two pieces (N even): the
// W interleaved complex cells of one x-row, loaded without reading past them. Member
// functions take their operands by reference, for the same reason as vload.
template <typename T, int N>
struct RowVec {
  static constexpr int L = Vec<T>::lanes;
  static constexpr int NF = N / L, R = N % L;                          // whole vectors, tail
  static constexpr int P1 = R & (L / 2), P2 = R & (L / 4), P3 = R & (L / 8);  // tail pieces
  template <int S>
  struct Piece {
    typedef T type __attribute__((vector_size((S > 0 ? S : 2) * sizeof(T))));
  };
  // Registers one row takes, and how many rows fit beside the one being loaded and the sum
  // (up to four): the accumulators of an interpolation's rows.
  static constexpr int registers = NF + (P1 > 0) + (P2 > 0) + (P3 > 0);
  static constexpr int accumulators() {
    const int n = kVecRegisters * 3 / 4 / registers - 2;
    return n < 1 ? 1 : n > 4 ? 4 : n;
  }
  vec_t<T> f[NF > 0 ? NF : 1];
  typename Piece<P1>::type t1{};
  typename Piece<P2>::type t2{};
  typename Piece<P3>::type t3{};

  // fn(offset, piece of each row...) for each whole vector and tail piece, offset being the
  // piece's first real in the row: the one walk over the pieces that the members share.
  template <typename F, typename... Rows>
  static void each(F&& fn, Rows&... rows) {
    for (int i = 0; i < NF; ++i) fn(i * L, rows.f[i]...);
    if constexpr (P1 > 0) fn(NF * L, rows.t1...);
    if constexpr (P2 > 0) fn(NF * L + P1, rows.t2...);
    if constexpr (P3 > 0) fn(NF * L + P1 + P2, rows.t3...);
  }

  void store(T* p) const {
    each([p](int o, const auto& v) { std::memcpy(p + o, &v, sizeof v); }, *this);
  }
  void zero() {
    each([](int, auto& v) { v = std::remove_reference_t<decltype(v)>{}; }, *this);
  }
  // this += a * x
  void fma(T a, const RowVec& x) {
    each([a](int, auto& v, const auto& xv) { v += a * xv; }, *this, x);
  }
  // this += a * (the row at p), a piece at a time (loading the whole row into a RowVec first,
  // GCC merged the loads into one block copy through the stack on AVX2)
  void fma_load(T a, const T* p) {
    each(
        [a, p](int o, auto& v) {
          std::remove_reference_t<decltype(v)> x;
          std::memcpy(&x, p + o, sizeof x);
          v += a * x;
        },
        *this);
  }
  void add(const RowVec& x) {
    each([](int, auto& v, const auto& xv) { v += xv; }, *this, x);
  }
};

}  // namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA
