#include "cpu/isa.hpp"

#include <cstdlib>
#include <cstring>

namespace nufftmp::detail::cpu {

namespace {

Isa detect_isa() {
#if defined(NUFFTMP_CPU_X86_VARIANTS)
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512bw");
  Isa best = avx512 ? Isa::Avx512 : avx2 ? Isa::Avx2 : Isa::Generic;
  if (const char* env = std::getenv("NUFFTMP_CPU_ISA")) {
    // Only ever downgrade: asking for an instruction set the CPU lacks would crash.
    if (std::strcmp(env, "generic") == 0) best = Isa::Generic;
    if (std::strcmp(env, "avx2") == 0 && avx2) best = Isa::Avx2;
  }
  return best;
#else
  return Isa::Generic;
#endif
}

}  // namespace

Isa cpu_isa() {
  static const Isa chosen = detect_isa();
  return chosen;
}

const char* cpu_isa_name() {
  switch (cpu_isa()) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    default: return "generic";
  }
}

}  // namespace nufftmp::detail::cpu
