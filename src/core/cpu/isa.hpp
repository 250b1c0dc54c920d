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

// NUFFTMP_CPU_DISPATCH(fn, args...): fn(args...) from the namespace of the instruction set in
// use (avx512::fn, avx2::fn or generic::fn), and its result. A macro, since a template cannot
// name the namespaces.
#if defined(NUFFTMP_CPU_X86_VARIANTS)
#define NUFFTMP_CPU_DISPATCH(fn, ...)                                           \
  ([&] {                                                                       \
    switch (::nufftmp::detail::cpu::cpu_isa()) {                               \
      case ::nufftmp::detail::cpu::Isa::Avx512: return avx512::fn(__VA_ARGS__); \
      case ::nufftmp::detail::cpu::Isa::Avx2: return avx2::fn(__VA_ARGS__);     \
      default: return generic::fn(__VA_ARGS__);                                 \
    }                                                                          \
  }())
#else
#define NUFFTMP_CPU_DISPATCH(fn, ...) generic::fn(__VA_ARGS__)
#endif
