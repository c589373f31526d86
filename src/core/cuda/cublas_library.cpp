#include "core/cuda/cublas_library.hpp"

#include <cublas_v2.h>  // types and constants only: the functions come from dlsym
#include <dlfcn.h>

#include <map>

#include "core/cuda/check.hpp"
#include "core/detail/cuda_runtime.hpp"

namespace cudist::detail::cuda {
namespace {

struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  // cublas_api.h overloads cublasGemmEx in C++: the C entry point's type, spelled out.
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, void const*,
                            void const*, cudaDataType, int, void const*, cudaDataType, int, void const*, void*,
                            cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;

  static Cublas const* load() {
    static Cublas const* const loaded = [] {
      void* lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
#ifdef CUDIST_CUBLAS_DIR
      if (lib == nullptr) lib = dlopen(CUDIST_CUBLAS_DIR "/libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
#endif
      if (lib == nullptr) return static_cast<Cublas const*>(nullptr);
      static Cublas c;
      c.create = reinterpret_cast<decltype(c.create)>(dlsym(lib, "cublasCreate_v2"));
      c.set_stream = reinterpret_cast<decltype(c.set_stream)>(dlsym(lib, "cublasSetStream_v2"));
      c.gemm_ex = reinterpret_cast<decltype(c.gemm_ex)>(dlsym(lib, "cublasGemmEx"));
      bool const complete = c.create != nullptr && c.set_stream != nullptr && c.gemm_ex != nullptr;
      return complete ? static_cast<Cublas const*>(&c) : nullptr;
    }();
    return loaded;
  }
};

void check(cublasStatus_t status, char const* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    CUDIST_THROW(::cudist::CudaError, "cuBLAS " << what << " failed with status " << static_cast<int>(status));
  }
}

/// This thread's handle for the current device. Handles are not safe to share between threads
/// at once; they live until the process ends (cuBLAS frees them with the context).
cublasHandle_t handle(Cublas const& c) {
  thread_local std::map<int, cublasHandle_t> handles;
  int const device = cuda_get_device();
  auto it = handles.find(device);
  if (it == handles.end()) {
    cublasHandle_t h = nullptr;
    check(c.create(&h), "handle creation");
    it = handles.emplace(device, h).first;
  }
  return it->second;
}

}  // namespace

bool cublas_available() { return Cublas::load() != nullptr; }

namespace {

/// c (m x n, row-major, in c_type) = a (m x k, row-major) b (n x k, row-major)^T in `type`,
/// computed as `compute`: in cuBLAS's column-major view, c^T (n x m) = b (stored k-major: op T)
/// a^T (op N).
bool gemm_abt(std::int64_t m, std::int64_t n, std::int64_t k, void const* a, std::int64_t lda, void const* b,
              std::int64_t ldb, void* c, std::int64_t ldc, cudaDataType type, cudaDataType c_type,
              cublasComputeType_t compute, cudaStream_t stream) {
  Cublas const* const lib = Cublas::load();
  if (lib == nullptr) return false;
  cublasHandle_t const h = handle(*lib);
  check(lib->set_stream(h, stream), "stream binding");
  float const one = 1.0f, zero = 0.0f;
  check(lib->gemm_ex(h, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &one,
                     b, type, static_cast<int>(ldb), a, type, static_cast<int>(lda), &zero, c, c_type,
                     static_cast<int>(ldc), compute, CUBLAS_GEMM_DEFAULT),
        "GEMM");
  return true;
}

}  // namespace

bool gemm_bf16_abt(std::int64_t m, std::int64_t n, std::int64_t k, void const* a, std::int64_t lda, void const* b,
                   std::int64_t ldb, void* c, std::int64_t ldc, cudaStream_t stream) {
  return gemm_abt(m, n, k, a, lda, b, ldb, c, ldc, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, stream);
}

bool gemm_tf32_abt(std::int64_t m, std::int64_t n, std::int64_t k, float const* a, std::int64_t lda, float const* b,
                   std::int64_t ldb, float* c, std::int64_t ldc, cudaStream_t stream) {
  return gemm_abt(m, n, k, a, lda, b, ldb, c, ldc, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, stream);
}

}  // namespace cudist::detail::cuda
