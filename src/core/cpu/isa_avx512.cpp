// The spreading and interpolation loops compiled for the avx512 instruction set (see
// CMakeLists.txt for its flags and spread_interp.cpp for the run-time choice).
#define NUFFTMP_CPU_ISA avx512
#include "cpu/interp_impl.hpp"
#include "cpu/spread_impl.hpp"
