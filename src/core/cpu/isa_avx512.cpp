// The spreading, interpolation and bin-sort loops compiled for the avx512 instruction set (see
// CMakeLists.txt for its flags and isa.hpp for the run-time choice).
#define NUFFTMP_CPU_ISA avx512
#include "cpu/bin_pass_impl.hpp"
#include "cpu/interp_impl.hpp"
#include "cpu/spread_impl.hpp"
