// The "sparse" suite of `cudist bench`: cases S1, S2, S2u and S3 of BENCHMARKS.md in float32,
// S1 in float64, and two real matrices: S4, the 32-nearest-neighbour graph of the shipped SIFT
// corpus (built by cudist's own self-join: the matrix of label propagation and spectral
// embedding on real descriptors), and S5, the shipped uscounties.mtx (small: a launch-bound call). Each case times cudist's SpMV (the plan's own choice, and each kernel
// forced, for tuning) and cuSPARSE's cusparseSpMV on the same device arrays, checks both
// against a float64 host reference, and measures against the copy bandwidth of this run.
//
// Floor: every nonzero's index and value, the row offsets, x and y each cross DRAM once:
//   bytes = nnz * (value + index) + (rows + 1) * index + cols * value + rows * value.
// x's L2 behaviour is explicit: median_time_us flushes L2 before every timed run, so x starts
// in DRAM each time (and is then gathered through L1/L2 as the kernel runs).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/gpu_timer.cuh"
#include "common/suite.hpp"
#include "core/cuda/check.hpp"
#include "cudist/core/array.hpp"
#include "cudist/io/matrix_market.hpp"
#include "cudist/io/npy.hpp"
#include "cudist/neighbors/knn.hpp"
#include "cudist/sparse/generators.hpp"
#include "cudist/sparse/spmv.hpp"

#define CUDIST_CUSPARSE_TRY(call)                                                                \
  do {                                                                                           \
    cusparseStatus_t const cudist_status_ = (call);                                              \
    if (cudist_status_ != CUSPARSE_STATUS_SUCCESS) {                                             \
      CUDIST_THROW(::cudist::CudaError,                                                          \
                   "cuSPARSE error " << cusparseGetErrorString(cudist_status_) << " in " #call); \
    }                                                                                            \
  } while (0)

namespace cudist::bench {
namespace {

using sparse::CsrMatrix;
using sparse::SpmvAlgorithm;

struct SparseCase {
  std::string id;
  std::string description;          // short: the table shows 46 characters; details go in the note
  std::function<CsrMatrix()> make;  // host matrix, int32 indices
};

std::string format(char const* fmt, double a, double b = 0, double c = 0) {
  char text[256];
  std::snprintf(text, sizeof(text), fmt, a, b, c);
  return text;
}

/// A stream that outlives everything allocated on it in a case (declare it first).
class Stream {
 public:
  Stream() { CUDIST_CUDA_TRY(cudaStreamCreate(&stream_)); }
  ~Stream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  Stream(Stream const&) = delete;
  Stream& operator=(Stream const&) = delete;
  operator cudaStream_t() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// Row-wise float64 reference and the scale of each row's terms (sum |a_k x_k|), to judge a
/// float32 result by its own rounding, not by cancellation in the data.
template <class T, class I>
void host_reference(CsrMatrix const& a, std::vector<double> const& x, std::vector<double>& y,
                    std::vector<double>& scale) {
  I const* offsets = a.row_offsets().data_as<I>();
  I const* cols = a.col_indices().data_as<I>();
  T const* values = a.values().data_as<T>();
  y.assign(a.rows(), 0.0);
  scale.assign(a.rows(), 0.0);
  for (std::int64_t r = 0; r < a.rows(); ++r) {
    for (I k = offsets[r]; k < offsets[r + 1]; ++k) {
      double const term = double(values[k]) * x[cols[k]];
      y[r] += term;
      scale[r] += std::fabs(term);
    }
  }
}

/// Whether y (device, value type T) matches the reference to a few roundings of T per term.
template <class T>
bool matches(void const* y_device, std::vector<double> const& want,
             std::vector<double> const& scale) {
  std::vector<T> got(want.size());
  CUDIST_CUDA_TRY(cudaMemcpy(got.data(), y_device, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  double const eps = sizeof(T) == 4 ? 6e-8 : 1.2e-16;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= 8 * eps * scale[i])) return false;
  }
  return true;
}

/// cuSPARSE's SpMV on the same arrays, with its preprocessing done before timing.
class CusparseSpmv {
 public:
  CusparseSpmv(CsrMatrix const& a, void const* x, void* y, cusparseSpMVAlg_t alg,
               cudaStream_t stream)
      : alg_(alg), value_type_(a.value_dtype() == DType::kFloat32 ? CUDA_R_32F : CUDA_R_64F) {
    cusparseIndexType_t const index =
        a.index_dtype() == DType::kInt32 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
    CUDIST_CUSPARSE_TRY(cusparseCreate(&handle_));
    CUDIST_CUSPARSE_TRY(cusparseSetStream(handle_, stream));
    CUDIST_CUSPARSE_TRY(cusparseCreateCsr(
        &matrix_, a.rows(), a.cols(), a.nnz(), const_cast<void*>(a.row_offsets().data()),
        const_cast<void*>(a.col_indices().data()), const_cast<void*>(a.values().data()), index,
        index, CUSPARSE_INDEX_BASE_ZERO, value_type_));
    CUDIST_CUSPARSE_TRY(cusparseCreateDnVec(&x_, a.cols(), const_cast<void*>(x), value_type_));
    CUDIST_CUSPARSE_TRY(cusparseCreateDnVec(&y_, a.rows(), y, value_type_));
    std::size_t bytes = 0;
    CUDIST_CUSPARSE_TRY(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha(),
                                                matrix_, x_, beta(), y_, value_type_, alg_,
                                                &bytes));
    CUDIST_CUDA_TRY(cudaMalloc(&buffer_, bytes > 0 ? bytes : 1));
    // Preprocessing is cuSPARSE's analysis, as our plan is ours; an algorithm without one says so.
    cusparseStatus_t const prepared =
        cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha(), matrix_, x_,
                                beta(), y_, value_type_, alg_, buffer_);
    if (prepared != CUSPARSE_STATUS_NOT_SUPPORTED) CUDIST_CUSPARSE_TRY(prepared);
  }
  ~CusparseSpmv() {
    cudaFree(buffer_);
    cusparseDestroyDnVec(x_);
    cusparseDestroyDnVec(y_);
    cusparseDestroySpMat(matrix_);
    cusparseDestroy(handle_);
  }
  CusparseSpmv(CusparseSpmv const&) = delete;
  CusparseSpmv& operator=(CusparseSpmv const&) = delete;

  void run() {
    CUDIST_CUSPARSE_TRY(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha(), matrix_,
                                     x_, beta(), y_, value_type_, alg_, buffer_));
  }

 private:
  // y = 1 * A x + 0 * y, with the scalars in the value type.
  void const* alpha() const {
    return value_type_ == CUDA_R_32F ? static_cast<void const*>(&one_f_) : &one_d_;
  }
  void const* beta() const {
    return value_type_ == CUDA_R_32F ? static_cast<void const*>(&zero_f_) : &zero_d_;
  }

  cusparseSpMVAlg_t alg_;
  cudaDataType value_type_;
  float one_f_ = 1.f, zero_f_ = 0.f;
  double one_d_ = 1.0, zero_d_ = 0.0;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t matrix_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr, y_ = nullptr;
  void* buffer_ = nullptr;
};

/// The k-nearest-neighbour graph of the shipped SIFT corpus (158829 uint8 rows; each row's k
/// nearest other rows, euclidean distances as values): real descriptors' locality, rows of
/// exactly k nonzeros, columns sorted by distance rather than by index.
CsrMatrix sift_knn_graph(std::int64_t k) {
  Array const corpus = io::read_npy(std::string(CUDIST_DATA_DIR) + "/descriptors/opencv_images_sift_u8.npy");
  Resources const gpu(Device::cuda(0));
  KnnResult const g = self_knn(gpu, Array::copy_of(corpus.view(), gpu.device), k,
                               Metric::kEuclidean);
  Array const distances = Array::copy_of(g.distances.view(), Device::cpu());
  Array const indices = Array::copy_of(g.indices.view(), Device::cpu());
  std::int64_t const rows = corpus.rows(), nnz = rows * k;
  CsrMatrix a = CsrMatrix::allocate(rows, rows, nnz, DType::kFloat32, DType::kInt32, Device::cpu());
  for (std::int64_t r = 0; r <= rows; ++r) a.row_offsets().data_as<std::int32_t>()[r] = static_cast<std::int32_t>(r * k);
  for (std::int64_t e = 0; e < nnz; ++e) {
    a.col_indices().data_as<std::int32_t>()[e] = static_cast<std::int32_t>(indices.data_as<std::int64_t>()[e]);
    a.values().data_as<float>()[e] = distances.data_as<float>()[e];
  }
  return a;
}

char const* algorithm_name(SpmvAlgorithm a) {
  switch (a) {
    case SpmvAlgorithm::kRowSplit:
      return "row-split";
    case SpmvAlgorithm::kMergePath:
      return "merge-path";
    case SpmvAlgorithm::kThreadPerRow:
      return "thread-per-row";
    default:
      return "auto";
  }
}

template <class T, class I>
CaseResult run_case(SparseCase const& c, Options const& options) {
  Stream const stream;
  CaseResult result;
  result.id = c.id;
  result.peer = "cuSPARSE";
  Device const gpu = Device::cuda(0);
  Resources const res(gpu, static_cast<cudaStream_t>(stream));

  CsrMatrix const host = c.make();
  CsrMatrix const a = CsrMatrix::copy_of(host.view(), gpu, stream);
  std::vector<double> x(host.cols());
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = double(int(j * 2654435761u % 17) - 8);
  std::vector<T> x_typed(x.begin(), x.end());
  Array const xd = Array::copy_of(view(x_typed.data(), 1, host.cols()), gpu, stream);
  Array yd = Array::allocate(1, host.rows(), a.value_dtype(), gpu, stream);
  std::vector<double> want, scale;
  host_reference<T, I>(host, x, want, scale);

  auto const t0 = std::chrono::steady_clock::now();
  sparse::SpmvPlan const plan = sparse::make_spmv_plan(res, a.view());
  double const plan_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  auto time_plan = [&](sparse::SpmvPlan const& p) {
    return median_time_us([&](cudaStream_t) { sparse::spmv(res, p, xd.view(), yd.view()); },
                          options.warmup, options.repeats, stream);
  };
  result.time_us = time_plan(plan);
  result.correct = matches<T>(yd.data(), want, scale);

  std::string kernels;
  for (SpmvAlgorithm forced :
       {SpmvAlgorithm::kRowSplit, SpmvAlgorithm::kMergePath, SpmvAlgorithm::kThreadPerRow}) {
    sparse::SpmvPlan const p = sparse::make_spmv_plan(
        res, a.view(), {sparse::Operation::kNone, forced, sparse::CsrCheck::kShapeOnly});
    kernels += std::string(", ") + algorithm_name(forced) + format(" %.1f us", time_plan(p));
    result.correct = result.correct && matches<T>(yd.data(), want, scale);
  }

  std::string peers;
  bool peer_correct = true;
  for (auto [alg, name] :
       {std::pair{CUSPARSE_SPMV_CSR_ALG1, "ALG1"}, {CUSPARSE_SPMV_CSR_ALG2, "ALG2"}}) {
    CusparseSpmv peer(a, xd.data(), yd.data(), alg, stream);
    double const us =
        median_time_us([&](cudaStream_t) { peer.run(); }, options.warmup, options.repeats, stream);
    peer_correct = peer_correct && matches<T>(yd.data(), want, scale);
    result.peer_us = result.peer_us == 0 ? us : std::min(result.peer_us, us);
    peers += std::string(peers.empty() ? "" : ", ") + name + format(" %.1f us", us);
  }

  double const rows = host.rows(), cols = host.cols(), nnz = host.nnz();
  double const vb = sizeof(T), ib = sizeof(I);
  double const bytes = nnz * (vb + ib) + (rows + 1) * ib + cols * vb + rows * vb;
  I const* offsets = host.row_offsets().data_as<I>();
  double longest = 0;
  for (std::int64_t r = 0; r < host.rows(); ++r)
    longest = std::max(longest, double(offsets[r + 1] - offsets[r]));

  result.description = c.description;
  result.floor_basis = "DRAM bytes / copy bandwidth";
  if (options.ceilings.copy_bytes_per_s > 0)
    result.floor_us = 1e6 * bytes / options.ceilings.copy_bytes_per_s;
  result.note =
      format("%.3f M rows, %.2f M nnz, longest row %.0f; ", rows / 1e6, nnz / 1e6, longest) +
      "auto: " + algorithm_name(plan.algorithm()) + kernels +
      format("; %.0f GB/s effective (%.1f MB moved)", bytes / result.time_us / 1e3, bytes / 1e6) +
      format("; x (%.0f KB) starts in DRAM: L2 flushed before every run", cols * vb / 1e3) +
      format("; plan %.1f ms", plan_ms) + "; cuSPARSE " + peers +
      (peer_correct ? "" : " (cuSPARSE result WRONG)");
  return result;
}

std::vector<SparseCase> cases(bool quick) {
  using sparse::poisson3d_csr;
  using sparse::rmat_csr;
  using sparse::uniform_random_csr;
  std::int64_t const s1 = quick ? 8000 : 52000;
  int const scale = quick ? 16 : 22;
  std::int64_t const s2u = quick ? 250'000 : 4'000'000;
  std::int64_t const s3 = quick ? 40 : 160;
  std::string const s1_text = "SpMV " + std::to_string(s1) + "^2 1% uniform";
  return {
      {"S1", s1_text + " fp32", [=] { return uniform_random_csr(s1, s1, s1 / 100, 1); }},
      {"S2", "SpMV R-MAT scale " + std::to_string(scale) + " fp32",
       [=] { return rmat_csr(scale, 16, 2); }},
      {"S2u", "SpMV " + std::to_string(s2u) + " rows x 16 uniform fp32",
       [=] { return uniform_random_csr(s2u, s2u, 16, 3); }},
      {"S3", "SpMV Poisson 7-point " + std::to_string(s3) + "^3 fp32",
       [=] { return poisson3d_csr(s3); }},
      {"S1-fp64", s1_text + " fp64",
       [=] { return uniform_random_csr(s1, s1, s1 / 100, 1, DType::kFloat64); }},
      {"S4", "SpMV SIFT corpus 32-NN graph (real) fp32", [] { return sift_knn_graph(32); }},
      {"S5", "SpMV uscounties.mtx (real, 3111^2) fp32",
       [] {
         return io::read_matrix_market(std::string(CUDIST_DATA_DIR) + "/sparse/uscounties.mtx", DType::kFloat32,
                                       DType::kInt32);
       }},
  };
}

std::vector<CaseResult> run_suite(Options const& options) {
  std::vector<CaseResult> results;
  for (SparseCase const& c : cases(options.quick)) {
    if (!options.wants(c.id)) continue;
    bool const fp64 = c.id == "S1-fp64";
    results.push_back(fp64 ? run_case<double, std::int32_t>(c, options)
                           : run_case<float, std::int32_t>(c, options));
  }
  return results;
}

}  // namespace

Suite sparse_suite() { return {"sparse", run_suite}; }

}  // namespace cudist::bench
