// cdist and pdist over a device set (distance/detail/split_pairwise.hpp). A GPU writes its rows
// through an array of its own and a copy, since the output may live on another GPU.
#include "distance/detail/split_pairwise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/split.hpp"
#include "core/detail/validate_view.hpp"
#include "distance/detail/compute.hpp"
#include "distance/detail/plan.hpp"
#include "distance/detail/row_windows.hpp"

namespace cudist::detail {
namespace {

/// A self-join's diagonal in a block of output rows whose first row is x's row `first`, written
/// by a part that computed its rows against x as another matrix: finite entries become exact 0,
/// as the unsplit cdist(x, x) writes them. Entry (l, first + l) of the block is a strided column,
/// brought to the host and back in one copy each.
void zero_diagonal(Resources const& shard, MatrixView block, std::int64_t first) {
  std::size_t const width = size_of(block.dtype);
  void* const start = static_cast<char*>(block.data) + static_cast<std::size_t>(first) * width;
  MatrixView const diagonal{start, block.rows, 1, block.stride + 1, block.dtype, block.memory};
  Array host = Array::copy_of(diagonal, Device::cpu(), shard.stream);  // synchronizes
  for (std::int64_t i = 0; i < block.rows; ++i) {
    if (block.dtype == DType::kFloat64) {
      double& v = host.data_as<double>()[i];
      if (std::isfinite(v)) v = 0;
    } else {
      float& v = host.data_as<float>()[i];
      if (std::isfinite(v)) v = 0;
    }
  }
  copy(host.view(), diagonal, shard.stream);
  if (shard.device.is_cuda()) cuda_stream_synchronize(shard.stream);  // `host` must outlive it
}

/// Rows of pdist's n points in `parts` contiguous ranges holding about equal numbers of pairs
/// (row i pairs with the n - 1 - i rows after it, so earlier ranges are shorter).
std::vector<RowRange> split_pairs(std::int64_t n, std::size_t parts) {
  auto const pairs_before = [n](std::int64_t r) { return r * n - r * (r + 1) / 2; };
  std::int64_t const total = pairs_before(n);
  std::vector<RowRange> ranges(parts);
  std::int64_t begin = 0;
  for (std::size_t s = 0; s < parts; ++s) {
    std::int64_t const target =
        total / static_cast<std::int64_t>(parts) * static_cast<std::int64_t>(s + 1);
    std::int64_t lo = begin, hi = n;  // the first row r with pairs_before(r) >= target
    while (lo < hi) {
      std::int64_t const mid = lo + (hi - lo) / 2;
      if (pairs_before(mid) >= target) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    std::int64_t const end = s + 1 == parts ? n : lo;
    ranges[s] = {begin, end};
    begin = end;
  }
  return ranges;
}

/// Rows a .. b - 1 of pdist(x) straight into their stretch of a condensed output in host
/// memory, in windows where the shard's budget requires (an output larger than every GPU): the
/// pdist of rows a .. n - 1 begins with exactly those rows' pairs, so its condensed layout, based
/// at row a's place in the whole output, puts every window where the whole output has it.
void pdist_rows_into_host(char const* who, Resources const& shard, ConstMatrixView x, std::int64_t a,
                          std::int64_t b, MatrixView target, Metric metric, MetricParams const& params) {
  std::int64_t const n = x.rows, rows = n - a;
  std::size_t const es = size_of(target.dtype);
  std::optional<Array> x_copy, x_stage;
  ConstMatrixView const xs = staged(readable_on(shard, row_slice(x, {a, n}), x_copy), shard.device, shard.stream, x_stage);
  std::int64_t const pairs = condensed_row_start(rows, b - a);
  MatrixView const local{static_cast<char*>(target.data) + condensed_row_start(n, a) * static_cast<std::int64_t>(es), 1,
                         pairs, pairs, target.dtype, Memory::kHost};
  PlannedPairwise const planned =
      plan_pairwise(shard, who, xs, xs, true, local, OutputLayout::kCondensed, metric, params);
  std::int64_t per_window = window_rows(shard, who, Memory::kHost, b - a, static_cast<double>(es) * static_cast<double>(rows - 1),
                                        static_cast<double>(es) * static_cast<double>(pairs));
  // It fits: one window on the CPU; on a GPU two, as the pipeline keeps two in flight.
  if (per_window == 0) per_window = shard.device.is_cuda() ? std::max<std::int64_t>(1, (b - a + 1) / 2) : b - a;
  run_pairwise_in_windows(shard, who, planned.problem, per_window, 0, b - a);
}

}  // namespace

void split_cdist(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                 ConstMatrixView y, MatrixView out, Metric metric, MetricParams const& params) {
  bool const self = same_view(x, y) && metric != Metric::kInnerProduct;
  std::vector<RowRange> const parts = split_rows(x.rows, shards.size());
  MatrixView const target = resolved(out);
  run_parts(who, shards, [&](std::size_t s) {
    if (parts[s].size() == 0) return;
    Resources const& shard = shards[s];
    std::optional<Array> x_copy, y_copy;
    ConstMatrixView const xs = readable_on(shard, row_slice(x, parts[s]), x_copy);
    ConstMatrixView const ys = readable_on(shard, y, y_copy);
    MatrixView const rows = row_slice(target, parts[s]);
    if (target.memory == Memory::kDevice && shard.device.is_cuda()) {
      Array own = Array::allocate(rows.rows, rows.cols, rows.dtype, shard.device, shard.stream);
      compute_pairwise(who, shard, xs, ys, false, own.view(), OutputLayout::kFull, metric, params);
      if (self) zero_diagonal(shard, own.view(), parts[s].begin);
      copy(own.view(), rows, shard.stream);
      cuda_stream_synchronize(shard.stream);  // `own` must outlive the copy
    } else {
      compute_pairwise(who, shard, xs, ys, false, rows, OutputLayout::kFull, metric, params);
      if (self) zero_diagonal(shard, rows, parts[s].begin);
    }
  });
}

// The part of rows [a, b) writes their pairs into its stretch of the condensed output: into host
// memory directly, windowed where its budget requires; into device memory (which may belong to
// another GPU) by computing them against rows a + 1 .. n - 1 as a block and copying each row's
// pairs after it.
void split_pdist(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                 MatrixView out, Metric metric, MetricParams const& params) {
  std::int64_t const n = x.rows;
  std::vector<RowRange> const parts = split_pairs(n, shards.size());
  MatrixView const target = resolved(out);
  std::size_t const width = size_of(out.dtype);
  run_parts(who, shards, [&](std::size_t s) {
    // The last row pairs with no row after it.
    std::int64_t const a = parts[s].begin, b = std::min(parts[s].end, n - 1);
    if (b <= a) return;
    Resources const& shard = shards[s];
    if (target.memory == Memory::kHost) return pdist_rows_into_host(who, shard, x, a, b, target, metric, params);
    std::optional<Array> x_copy, y_copy;
    ConstMatrixView const xs = readable_on(shard, row_slice(x, {a, b}), x_copy);
    ConstMatrixView const ys = readable_on(shard, row_slice(x, {a + 1, n}), y_copy);
    Array block = Array::allocate(b - a, n - a - 1, out.dtype, shard.device, shard.stream);
    compute_pairwise(who, shard, xs, ys, false, block.view(), OutputLayout::kFull, metric, params);
    for (std::int64_t i = a; i < b; ++i) {
      std::int64_t const length = n - 1 - i;
      auto const* from = static_cast<char const*>(block.data()) +
                         static_cast<std::size_t>((i - a) * block.cols() + (i - a)) * width;
      auto* to = static_cast<char*>(target.data) +
                 static_cast<std::size_t>(n * i - i * (i + 1) / 2) * width;
      copy(ConstMatrixView{from, 1, length, length, out.dtype, backend_memory(shard.device)},
           MatrixView{to, 1, length, length, out.dtype, target.memory}, shard.stream);
    }
    if (shard.device.is_cuda()) {
      cuda_stream_synchronize(shard.stream);  // `block` must outlive the copies
    }
  });
}

}  // namespace cudist::detail
