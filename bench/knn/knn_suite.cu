// Suite "knn": cases K1-K3 of BENCHMARKS.md, the fused nearest-neighbour selection on the GPU,
// each timed (median, cold L2), checked on sampled query rows against the float64 reference
// (exact for the uint8 corpus), and put against its floor. The torch peers are measured by a
// separate script on the same shapes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dense_check.hpp"
#include "common/gpu_timer.cuh"
#include "common/suite.hpp"
#include "cudist/io/npy.hpp"
#include "cudist/neighbors/knn.hpp"
#include "reference/knn_ref.hpp"

namespace cudist::bench {
namespace {

std::vector<std::int64_t> sample_rows(std::int64_t m) { return {0, m / 3, m / 2, m - 1}; }

template <class T>
std::vector<T> to_host_vector(Array const& a) {
  std::vector<T> v(static_cast<std::size_t>(a.size()));
  if (!v.empty()) copy(a.view(), MatrixView(v.data(), a.rows(), a.cols(), a.cols(), a.dtype(), Memory::kHost));
  return v;
}

/// The reference's k nearest of row i of x among the rows of y (float64, ties by index).
std::vector<reference::Neighbor> reference_row(reference::Matrix const& x, reference::Matrix const& y,
                                               std::int64_t i, std::int64_t k, Metric metric) {
  reference::Matrix const xi{1, x.cols, std::vector<double>(x.row(i), x.row(i) + x.cols)};
  return reference::knn(xi, y, k, metric)[0];
}

/// Sampled rows: distances as the reference's within rtol, each index at its reported distance.
bool check_knn(KnnResult const& r, reference::Matrix const& x, reference::Matrix const& y, std::int64_t k,
               Metric metric, double rtol) {
  std::vector<float> const d = to_host_vector<float>(r.distances);
  std::vector<std::int64_t> const idx = to_host_vector<std::int64_t>(r.indices);
  for (std::int64_t i : sample_rows(x.rows)) {
    auto const want = reference_row(x, y, i, k, metric);
    for (std::int64_t s = 0; s < k; ++s) {
      double const got = d[i * k + s];
      std::int64_t const j = idx[i * k + s];
      if (j < 0 || j >= y.rows) return false;
      double const own = reference::distance(metric, x.row(i), y.row(j), x.cols, {});
      if (std::fabs(got - want[s].distance) > rtol * want[s].distance + 1e-6) return false;
      if (std::fabs(got - own) > rtol * own + 1e-6) return false;
    }
  }
  return true;
}

/// Sampled rows: matched exactly when the reference's ratio test keeps them.
bool check_matches(MatchResult const& r, reference::Matrix const& x, reference::Matrix const& y, double ratio) {
  std::vector<std::int64_t> const pairs = to_host_vector<std::int64_t>(r.pairs);
  for (std::int64_t i : sample_rows(x.rows)) {
    auto const best = reference_row(x, y, i, 2, Metric::kEuclidean);
    bool const want = best[0].distance < ratio * best[1].distance;
    bool found = false;
    for (std::size_t q = 0; q < pairs.size() / 2; ++q) {
      if (pairs[2 * q] == i) found = pairs[2 * q + 1] == best[0].index;
    }
    if (found != want) return false;
  }
  return true;
}

/// The float32 euclidean cases find their candidates on the float16 tensor cores (sm_80+): their
/// floor is the multiply-adds at the rate cuBLAS reaches in a large bf16 GEMM (fp16's is the same
/// on the H100). Until 2026-11-25 it was the SIMT FFMA issue floor, which the note keeps.
void tensor_core_floor(CaseResult& r, double multiply_adds, Options const& opt) {
  r.floor_us = 1e6 * multiply_adds / opt.ceilings.mma_bf16_per_s;
  r.floor_basis = "fp16 GEMM rate";
  r.note = "fp32 SIMT floor " + std::to_string(static_cast<long long>(2e6 * multiply_adds / opt.ceilings.fma_per_s)) + " us";
}

CaseResult k1_ratio_test(Options const& opt, bool selection_only) {
  std::int64_t const s = opt.quick ? 4 : 1;
  std::int64_t const m = 4000 / s, n = 20000 / s, d = 128;
  HostInput const x = random_input(m, d, DType::kFloat32, 11);
  HostInput const y = random_input(n, d, DType::kFloat32, 12);
  Array const xd = Array::copy_of(x.array, Device::cuda()), yd = Array::copy_of(y.array, Device::cuda());
  KnnResult knn2{Array::allocate(m, 2, DType::kFloat32, Device::cuda()), Array::allocate(m, 2, DType::kInt64, Device::cuda())};
  MatchResult matches;
  auto run = [&](cudaStream_t stream) {
    Resources const res(Device::cuda(), stream);
    if (selection_only) {
      knn(res, xd, yd, 2, Metric::kEuclidean, knn2.distances.view(), knn2.indices.view());
    } else {
      matches = match(res, xd, yd, Metric::kEuclidean);
    }
  };
  CaseResult r;
  r.id = selection_only ? "K1s" : "K1";
  r.description = std::string(selection_only ? "2-NN only (knn k=2) " : "2-NN + ratio test (match) ") +
                  std::to_string(m) + "x" + std::to_string(n) + " d=128 fp32";
  r.time_us = median_time_us(run, opt.warmup, opt.repeats);
  tensor_core_floor(r, double(m) * n * d, opt);
  r.correct = selection_only ? check_knn(knn2, x.values, y.values, 2, Metric::kEuclidean, 1e-5)
                             : check_matches(matches, x.values, y.values, 0.75);
  r.note += selection_only ? "; the fused selection and merge of K1, without the ratio test and compaction"
                           : "; exact euclidean; includes the ratio test, compaction and the result-size sync";
  return r;
}

CaseResult k2_knn(Options const& opt) {
  std::int64_t const s = opt.quick ? 4 : 1;
  std::int64_t const m = 10000 / s, n = 100000 / s, d = 128, k = 10;
  HostInput const x = random_input(m, d, DType::kFloat32, 21);
  HostInput const y = random_input(n, d, DType::kFloat32, 22);
  Array const xd = Array::copy_of(x.array, Device::cuda()), yd = Array::copy_of(y.array, Device::cuda());
  KnnResult out{Array::allocate(m, k, DType::kFloat32, Device::cuda()), Array::allocate(m, k, DType::kInt64, Device::cuda())};
  auto run = [&](cudaStream_t stream) {
    knn(Resources(Device::cuda(), stream), xd, yd, k, Metric::kEuclidean, out.distances.view(), out.indices.view());
  };
  CaseResult r;
  r.id = "K2";
  r.description = "knn k=10 " + std::to_string(m) + "x" + std::to_string(n) + " d=128 fp32";
  r.time_us = median_time_us(run, opt.warmup, opt.repeats);
  tensor_core_floor(r, double(m) * n * d, opt);
  r.correct = check_knn(out, x.values, y.values, k, Metric::kEuclidean, 1e-5);
  r.note += "; exact euclidean (ranked on exact squares)";
  return r;
}

CaseResult k3_sift_self_join(Options const& opt) {
  Array corpus = io::read_npy(std::string(CUDIST_DATA_DIR) + "/descriptors/opencv_images_sift_u8.npy");
  std::int64_t const n = opt.quick ? corpus.rows() / 8 : corpus.rows(), d = corpus.cols(), k = 10;
  ConstMatrixView const rows(corpus.data(), n, d, d, DType::kUInt8, Memory::kHost);
  Array const xd = Array::copy_of(rows, Device::cuda());
  KnnResult out;
  auto run = [&](cudaStream_t stream) {
    out = self_knn(Resources(Device::cuda(), stream), xd, k, Metric::kEuclidean, SelfJoin::kIncludeSelf);
  };
  CaseResult r;
  r.id = "K3";
  r.description = "SIFT corpus self-join k=10 " + std::to_string(n) + "x128 uint8";
  r.time_us = median_time_us(run, opt.warmup, opt.repeats);
  // The contraction runs on the int8 tensor cores (sm_80+): its floor is the self-join's
  // multiply-adds at the rate cuBLAS reaches in a large int8 GEMM. (Until 2026-11-25 this row's
  // floor was the dp4a issue floor, pairs * d / 4 at half the FFMA rate: 50.9 ms on the H100.)
  double const pairs = double(n) * n;
  r.floor_us = 1e6 * pairs * d / opt.ceilings.mma_int8_per_s;
  r.floor_basis = "int8 GEMM rate";
  reference::Matrix values{n, d, std::vector<double>(static_cast<std::size_t>(n * d))};
  for (std::int64_t e = 0; e < n * d; ++e) values.v[e] = static_cast<std::uint8_t const*>(corpus.data())[e];
  r.correct = check_knn(out, values, values, k, Metric::kEuclidean, 1e-6);
  r.note = "exact uint8 L2 (int8 MMA on sm_80+, else dp4a); includes each point itself, as cdist + topk does; fp32 SIMT floor " +
           std::to_string(static_cast<long long>(2e6 * pairs * d / opt.ceilings.fma_per_s)) + " us";
  return r;
}

std::vector<CaseResult> run_knn_suite(Options const& opt) {
  return {k1_ratio_test(opt, false), k1_ratio_test(opt, true), k2_knn(opt), k3_sift_self_join(opt)};
}

}  // namespace

Suite knn_suite() { return {"knn", run_knn_suite}; }

}  // namespace cudist::bench
