// The choice of the CPU contraction's instruction set (isa.hpp).
#include "distance/detail/cpu/isa.hpp"

#include <cstdlib>
#include <string>

#include "core/detail/expects.hpp"
#include "distance/detail/cpu/micro_kernel.hpp"

namespace cudist::detail::cpu {
namespace {

bool cpu_runs(CpuVariant v) {
#if CUDIST_CPU_DISPATCH
  switch (v) {
    case CpuVariant::kBuild: return true;
    // What the variants' target pragmas enable (cpu_kernels_*.cpp); __builtin_cpu_supports also
    // checks that the OS saves the vector registers.
    case CpuVariant::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2") &&
             __builtin_cpu_supports("popcnt");
    case CpuVariant::kAvx512:
      return cpu_runs(CpuVariant::kAvx2) && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl");
  }
  return false;
#else
  return v == CpuVariant::kBuild;
#endif
}

CpuVariant choose() {
  if (char const* forced = std::getenv("CUDIST_CPU_ISA"); forced != nullptr && *forced != '\0') {
    std::string const name = forced;
    CpuVariant const v = name == "build"    ? CpuVariant::kBuild
                         : name == "avx2"   ? CpuVariant::kAvx2
                         : name == "avx512" ? CpuVariant::kAvx512
                                            : throw InvalidArgument("CUDIST_CPU_ISA=" + name +
                                                                    ": expected build, avx2 or avx512");
    CUDIST_EXPECTS(cpu_runs(v), "CUDIST_CPU_ISA=" << name
                                                  << ": this CPU (or this build: CUDIST_CPU_DISPATCH) does not "
                                                     "run that instruction set");
    return v;
  }
  CpuVariant best = CpuVariant::kBuild;
  for (CpuVariant v : {CpuVariant::kAvx2, CpuVariant::kAvx512}) {
    if (cpu_runs(v) && vector_bytes(v) > vector_bytes(best)) best = v;
  }
  return best;
}

}  // namespace

int vector_bytes(CpuVariant v) {
  return v == CpuVariant::kAvx512 ? 64 : v == CpuVariant::kAvx2 ? 32 : build::kVectorBytes;
}

CpuVariant cpu_variant() {
  static CpuVariant const chosen = choose();
  return chosen;
}

}  // namespace cudist::detail::cpu
