// The instruction set the CPU engine's hot loops run with: the widest of generic, AVX2+FMA and
// AVX-512 that the CPU has, chosen once per process (NUFFTMP_CPU_ISA=generic|avx2|avx512 in the
// environment can only narrow it, for tests and comparisons). Each loop family is compiled once
// per variant (isa_*.cpp) and dispatched on this.
#pragma once

namespace nufftmp::detail::cpu {

enum class Isa { Generic, Avx2, Avx512 };

Isa cpu_isa();
const char* cpu_isa_name();  // "generic", "avx2", "avx512"

}  // namespace nufftmp::detail::cpu
