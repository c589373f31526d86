# Which GPU architectures the CUDA code is compiled for. Included before enable_language(CUDA).
#   1. CMAKE_CUDA_ARCHITECTURES given by the user (or a toolchain): used as given.
#   2. CUDIST_CUDA_ARCHITECTURES=all-wheel (pip builds set it, see pyproject.toml): real code for
#      every GPU generation CUDA 12.8+/13 supports from Turing to Blackwell, plus PTX of the
#      newest, which the driver compiles at load time for GPUs newer than the list. Any other
#      value of CUDIST_CUDA_ARCHITECTURES is passed through as a CMake architecture list.
#   3. A GPU in the build machine: `native` (real code for exactly that GPU).
#   4. No GPU: PTX of the oldest supported architecture. It runs on every supported GPU (the
#      driver compiles it once, then caches it) and is the cheapest to build, because ptxas never
#      runs: CI (2 cores, no GPU) only needs to know that the CUDA code compiles.
#      docs/tuning.md "Architectures" has the measurement.
set(CUDIST_CUDA_ARCHITECTURES "" CACHE STRING
    "CUDA architectures when CMAKE_CUDA_ARCHITECTURES is not set: all-wheel, native, or a list")
set(cudist_wheel_architectures 75-real 80-real 86-real 89-real 90-real 100-real 120)
set(cudist_no_gpu_architectures 75-virtual)

if(DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(cudist_arch_reason "CMAKE_CUDA_ARCHITECTURES as given")
elseif(CUDIST_CUDA_ARCHITECTURES STREQUAL "all-wheel")
  set(CMAKE_CUDA_ARCHITECTURES ${cudist_wheel_architectures})
  set(cudist_arch_reason "CUDIST_CUDA_ARCHITECTURES=all-wheel")
elseif(CUDIST_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES ${CUDIST_CUDA_ARCHITECTURES})
  set(cudist_arch_reason "CUDIST_CUDA_ARCHITECTURES")
else()
  execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                  OUTPUT_VARIABLE cudist_gpu_caps RESULT_VARIABLE cudist_smi_rc ERROR_QUIET)
  if(cudist_smi_rc EQUAL 0 AND cudist_gpu_caps MATCHES "[0-9]")
    set(CMAKE_CUDA_ARCHITECTURES native)
    set(cudist_arch_reason "the build machine's GPU")
  else()
    set(CMAKE_CUDA_ARCHITECTURES ${cudist_no_gpu_architectures})
    set(cudist_arch_reason "no GPU found: PTX only, compiled by the driver at load time")
  endif()
endif()
message(STATUS "cudist: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (${cudist_arch_reason})")

# Hopper's wgmma exists only in sm_90a code, which runs on compute capability 9.0 alone, so its
# kernels get a unit of their own built for that target (src/neighbors/CMakeLists.txt): real code
# where the list holds Hopper (or the build machine's GPU is one), PTX of compute_90a in the
# GPU-less default (CI compiles it; a copy run on a Hopper GPU compiles it at load time), and
# nothing for a list without Hopper.
set(CUDIST_WGMMA_GENCODE "")
if(CMAKE_CUDA_ARCHITECTURES MATCHES "(^|;)90" OR
   (CMAKE_CUDA_ARCHITECTURES STREQUAL "native" AND cudist_gpu_caps MATCHES "9\\.0"))
  set(CUDIST_WGMMA_GENCODE "arch=compute_90a,code=sm_90a")
elseif(CMAKE_CUDA_ARCHITECTURES STREQUAL cudist_no_gpu_architectures)
  set(CUDIST_WGMMA_GENCODE "arch=compute_90a,code=compute_90a")
endif()
