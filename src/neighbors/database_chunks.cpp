#include "neighbors/detail/database_chunks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/interrupt_check.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/progress_report.hpp"
#include "cudist/core/array.hpp"
#include "cudist/core/memory_budget.hpp"
#include "cudist/core/timeline.hpp"
#include "distance/detail/plan.hpp"
#include "neighbors/detail/backend.hpp"
#include "neighbors/detail/keys.hpp"
#include "neighbors/detail/plan.hpp"

namespace cudist::neighbors::detail {
namespace {

// Without a budget, chunks use at most this share of the GPU's free memory (the selection's
// workspace and the allocator need the rest).
constexpr double kFreeMemoryShare = 0.8;

/// Rows r0 .. r1 - 1 of v.
ConstMatrixView rows_of(ConstMatrixView v, std::int64_t r0, std::int64_t r1) {
  auto const* base = static_cast<char const*>(v.data) + r0 * v.stride * static_cast<std::int64_t>(size_of(v.dtype));
  return {base, r1 - r0, v.cols, v.stride, v.dtype, v.memory};
}

/// The best `k` entries of every row so far (host, nearest first), merged with one chunk's at a time.
template <class Out>
class RunningTopK {
 public:
  RunningTopK(std::int64_t m, std::int64_t k, bool similarity)
      : m_(m), k_(k), similarity_(similarity), distances_(m * k), indices_(m * k) {}

  /// Merges a chunk's (m, kc) answer, whose indices count from row `offset` of the database. The
  /// running entries come from earlier chunks, so their indices are smaller: on equal keys they
  /// stay first, as the in-memory call orders ties.
  void merge(Out const* chunk_d, std::int64_t const* chunk_i, std::int64_t kc, std::int64_t offset) {
    std::int64_t const kept = std::min(k_, filled_ + kc);
#pragma omp parallel
    {
      std::vector<Out> d(k_);
      std::vector<std::int64_t> idx(k_);
#pragma omp for schedule(static)
      for (std::int64_t r = 0; r < m_; ++r) {
        Out const* a_d = distances_.data() + r * k_;
        std::int64_t const* a_i = indices_.data() + r * k_;
        Out const* b_d = chunk_d + r * kc;
        std::int64_t const* b_i = chunk_i + r * kc;
        std::int64_t a = 0, b = 0;
        for (std::int64_t n = 0; n < kept; ++n) {
          bool const take_a = b == kc || (a < filled_ && !(order(b_d[b]) < order(a_d[a])));
          d[n] = take_a ? a_d[a] : b_d[b];
          idx[n] = take_a ? a_i[a++] : offset + b_i[b++];
        }
        std::copy(d.begin(), d.begin() + kept, distances_.begin() + r * k_);
        std::copy(idx.begin(), idx.begin() + kept, indices_.begin() + r * k_);
      }
    }
    filled_ = kept;
  }

  /// The answer as the in-memory call reports it: the square root of euclidean keys, and the
  /// slots no database row filled (options.pad) as (NaN, -1).
  void write(bool sqrt_distance, MatrixView distances, MatrixView indices, void* stream) {
    for (std::int64_t r = 0; r < m_; ++r) {
      for (std::int64_t n = 0; n < k_; ++n) {
        Out& v = distances_[r * k_ + n];
        if (n >= filled_) {
          v = std::numeric_limits<Out>::quiet_NaN();
          indices_[r * k_ + n] = -1;
        } else if (sqrt_distance) {
          v = std::sqrt(v);
        }
      }
    }
    DType const dtype = std::is_same_v<Out, double> ? DType::kFloat64 : DType::kFloat32;
    copy(ConstMatrixView(distances_.data(), m_, k_, k_, dtype, Memory::kHost), distances, stream);
    copy(ConstMatrixView(indices_.data(), m_, k_, k_, DType::kInt64, Memory::kHost), indices, stream);
  }

 private:
  /// The selection's key order of a reported distance (sqrt deferred): similarities negated,
  /// -0 as +0, NaN after +inf.
  typename KeyTraits<Out>::Order order(Out v) const { return KeyTraits<Out>::order(similarity_ ? -v : v); }

  std::int64_t m_, k_;
  bool similarity_;
  std::int64_t filled_ = 0;  // entries per row so far
  std::vector<Out> distances_;
  std::vector<std::int64_t> indices_;
};

template <class Out>
RankSpec run_chunks(char const* who, Resources const& res, ConstMatrixView x, ConstMatrixView y, std::int64_t k,
                    Metric metric, MetricParams const& params, MatrixView distances, MatrixView indices,
                    std::int64_t chunk_rows, bool rank_values) {
  std::uint64_t const requests = cudist::detail::interrupt_requests();
  RunningTopK<Out> best(x.rows, k, ranks_largest_first(metric));
  std::optional<Array> x_stage;  // the queries go to the device once, not with every chunk
  ConstMatrixView const xs = cudist::detail::staged(x, res.device, res.stream, x_stage);
  RankSpec rank;
  for (std::int64_t r0 = 0; r0 < y.rows; r0 += chunk_rows) {
    cudist::detail::throw_if_interrupted(who);
    std::int64_t const r1 = std::min(y.rows, r0 + chunk_rows);
    ConstMatrixView const chunk = rows_of(y, r0, r1);
    // A chunk large enough streams into its search as a database that fits does (plan.hpp,
    // streams_database): its later parts are copied while the earlier ones are searched.
    PlannedSelect planned =
        plan_select(who, res, xs, chunk, whole(xs, chunk), metric, params, false, false, false, true);
    rank = planned.problem.rank;
    planned.problem.rank.sqrt_distance = false;  // merge on the keys; the root of the answers only
    std::int64_t const kc = std::min(k, r1 - r0);
    Array chunk_d = Array::allocate(x.rows, kc, planned.problem.distance_dtype, res.device, res.stream);
    Array chunk_i = Array::allocate(x.rows, kc, DType::kInt64, res.device, res.stream);
    if (res.device.is_cuda()) {
      cuda::knn(planned.problem, kc, chunk_d.view(), chunk_i.view(), res.stream);
    } else {
      cpu::knn(planned.problem, kc, chunk_d.view(), chunk_i.view());
    }
    Array const host_d = Array::copy_of(chunk_d.view(), Device::cpu(), res.stream);  // synchronizes
    Array const host_i = Array::copy_of(chunk_i.view(), Device::cpu(), res.stream);
    cudist::detail::throw_if_interrupted(who, requests);  // the chunk's kernel may have stopped early
    {
      cudist::TimelineSpan const span("merge a chunk's answer on the host");
      best.merge(host_d.data_as<Out>(), host_i.data_as<std::int64_t>(), kc, r0);
    }
    cudist::detail::report_progress(who, r1, y.rows);
  }
  best.write(rank.sqrt_distance && !rank_values, distances, indices, res.stream);
  return rank;
}

}  // namespace

std::int64_t database_rows_held(Resources const& res, ConstMatrixView y, Metric metric) {
  bool const gpu = res.device.is_cuda();
  if (y.rows == 0 || (!gpu && res.memory_budget == 0)) return y.rows;
  // Bytes per value of a chunk: two chunks resident (one searched while the next is copied); the
  // planner's float32 copy where it converts (16-bit floats; byte rows for the metrics without an
  // exact integer path) or prepares (cosine, correlation: the other preparing metrics are not
  // search metrics); and on a GPU, the 16-bit copy of the tensor-core search or the GEMM path
  // (bounded_search.hpp, gemm_knn.hpp) for floating rows.
  bool const half = y.dtype == DType::kFloat16 || y.dtype == DType::kBFloat16;
  bool const bytes = y.dtype == DType::kUInt8 || y.dtype == DType::kInt8;
  bool const integer_metric = metric == Metric::kSqEuclidean || metric == Metric::kEuclidean ||
                              metric == Metric::kCityblock || metric == Metric::kChebyshev ||
                              metric == Metric::kInnerProduct || metric == Metric::kHammingBits;
  bool const prepared = half || (bytes && !integer_metric) || metric == Metric::kCosine ||
                        metric == Metric::kCorrelation;
  bool const floating = y.dtype != DType::kFloat64 && is_floating(y.dtype);
  double const copies =
      2.0 * static_cast<double>(size_of(y.dtype)) + (prepared ? 4.0 : 0.0) + (gpu && floating ? 2.0 : 0.0);
  double const row_bytes = copies * static_cast<double>(y.cols);
  double const room = res.memory_budget != 0
                          ? static_cast<double>(res.memory_budget)
                          : kFreeMemoryShare * static_cast<double>(available_memory(res.device));
  if (row_bytes * static_cast<double>(y.rows) <= room) return y.rows;
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(room / row_bytes), 1, y.rows);
}

std::int64_t database_chunk_rows(Resources const& res, ConstMatrixView y, Metric metric) {
  if (y.rows == 0 || cudist::detail::resolve_memory(y.data, y.memory) != Memory::kHost) return 0;
  std::int64_t const held = database_rows_held(res, y, metric);
  return held == y.rows ? 0 : held;
}

RankSpec knn_in_database_chunks(char const* who, Resources const& res, ConstMatrixView x, ConstMatrixView y,
                                std::int64_t k, Metric metric, KnnOptions const& options, MatrixView distances,
                                MatrixView indices, std::int64_t chunk_rows) {
  // Defaults estimated from a chunk would differ from chunk to chunk: estimate them from all rows.
  MetricParams const params = cudist::detail::with_estimates(res, who, metric, options.params, x, y);
  if (distance_output_dtype(x.dtype) == DType::kFloat64) {
    return run_chunks<double>(who, res, x, y, k, metric, params, distances, indices, chunk_rows,
                              options.rank_values);
  }
  return run_chunks<float>(who, res, x, y, k, metric, params, distances, indices, chunk_rows, options.rank_values);
}

}  // namespace cudist::neighbors::detail
