// cudist info: the build, the devices present, and the ceilings measured on the GPU.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "common/suite.hpp"
#include "cudist/core/device.hpp"

namespace cudist::cli {
namespace {

void run_info(bool measure) {
  std::printf("cudist 0.1.0, CUDA backend %s\n", cuda_compiled() ? "built" : "not built");
  int const gpus = cuda_device_count();
  std::printf("devices: cpu%s\n", gpus > 0 ? "" : " (no CUDA GPU found)");
  for (int i = 0; i < gpus; ++i) std::printf("         cuda:%d\n", i);
  if (!measure || gpus == 0) return;
  bench::Ceilings const c = bench::measure_ceilings();
  std::printf("measured on %s:\n", c.device_name.c_str());
  std::printf("  write bandwidth        %8.2f TB/s\n", c.write_bytes_per_s / 1e12);
  std::printf("  copy bandwidth (r+w)   %8.2f TB/s\n", c.copy_bytes_per_s / 1e12);
  std::printf("  FP32 FMA               %8.2f T/s\n", c.fma_per_s / 1e12);
  std::printf("  FP32 add+min update    %8.2f T/s\n", c.fmnmx_add_per_s / 1e12);
  std::printf("  POPC (32-bit)          %8.2f T/s\n", c.popc_per_s / 1e12);
  std::printf("  DPX viaddmin s32       %8.2f T/s\n", c.dpx_s32_per_s / 1e12);
  std::printf("  DPX viaddmin s16x2     %8.2f T updates/s\n", c.dpx_s16x2_per_s / 1e12);
  std::printf("  int8 tensor cores      %8.1f T multiply-adds/s (cuBLAS GEMM)\n", c.mma_int8_per_s / 1e12);
  std::printf("  bf16 tensor cores      %8.1f T multiply-adds/s (cuBLAS GEMM)\n", c.mma_bf16_per_s / 1e12);
  std::printf("  tf32 tensor cores      %8.1f T multiply-adds/s (cuBLAS GEMM)\n", c.mma_tf32_per_s / 1e12);
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto measure = std::make_shared<bool>(true);
  CLI::App* cmd = app.add_subcommand("info", "build, devices, and the GPU's measured ceilings");
  cmd->add_flag("!--no-measure", *measure, "skip measuring the GPU's ceilings");
  cmd->callback([measure] { run_info(*measure); });
}

}  // namespace cudist::cli
