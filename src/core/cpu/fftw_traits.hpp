// FFTW's float and double APIs behind one traits template, so the engine is written once.
#pragma once

#include <fftw3.h>

namespace nufftmp::detail::cpu {

template <typename T> struct Fftw;

template <> struct Fftw<double> {
  using plan_t = fftw_plan;
  using complex_t = fftw_complex;
  static int init_threads() { return fftw_init_threads(); }
  static void make_planner_thread_safe() { fftw_make_planner_thread_safe(); }
  static void plan_with_nthreads(int n) { fftw_plan_with_nthreads(n); }
  static plan_t plan_many(int rank, const int* n, const int* embed, int howmany, complex_t* in,
                          int idist, complex_t* out, int odist, int sign, unsigned flags) {
    return fftw_plan_many_dft(rank, n, howmany, in, embed, 1, idist, out, embed, 1, odist,
                              sign, flags);
  }
  static void execute_dft(plan_t p, complex_t* in, complex_t* out) { fftw_execute_dft(p, in, out); }
  static int alignment_of(void* p) { return fftw_alignment_of(static_cast<double*>(p)); }
  static void destroy(plan_t p) { fftw_destroy_plan(p); }
  static void* malloc(size_t bytes) { return fftw_malloc(bytes); }
  static void free(void* p) { fftw_free(p); }
};

template <> struct Fftw<float> {
  using plan_t = fftwf_plan;
  using complex_t = fftwf_complex;
  static int init_threads() { return fftwf_init_threads(); }
  static void make_planner_thread_safe() { fftwf_make_planner_thread_safe(); }
  static void plan_with_nthreads(int n) { fftwf_plan_with_nthreads(n); }
  static plan_t plan_many(int rank, const int* n, const int* embed, int howmany, complex_t* in,
                          int idist, complex_t* out, int odist, int sign, unsigned flags) {
    return fftwf_plan_many_dft(rank, n, howmany, in, embed, 1, idist, out, embed, 1, odist,
                               sign, flags);
  }
  static void execute_dft(plan_t p, complex_t* in, complex_t* out) { fftwf_execute_dft(p, in, out); }
  static int alignment_of(void* p) { return fftwf_alignment_of(static_cast<float*>(p)); }
  static void destroy(plan_t p) { fftwf_destroy_plan(p); }
  static void* malloc(size_t bytes) { return fftwf_malloc(bytes); }
  static void free(void* p) { fftwf_free(p); }
};

}  // namespace nufftmp::detail::cpu
