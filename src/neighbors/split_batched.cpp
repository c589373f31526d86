// knn_batched / match_batched over a device set: whole problems go to each device, in contiguous
// ranges of about equal work (query rows x candidate rows), so no answer needs a merge: each
// device's rows and matches are copied into their places in the result.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/detail/split.hpp"
#include "core/detail/validate_view.hpp"
#include "neighbors/detail/split_select.hpp"

namespace cudist::neighbors::detail {
namespace {

using cudist::detail::returned_on;
using cudist::detail::RowRange;

/// Problems [begin, end) per shard, balanced by query rows x candidate rows (plus the rows, so
/// that problems without candidates still count).
std::vector<RowRange> split_problems(Batch const& batch, std::size_t parts) {
  std::int64_t const problems = static_cast<std::int64_t>(batch.x_offsets.size()) - 1;
  std::vector<std::int64_t> work_before(problems + 1, 0);
  for (std::int64_t b = 0; b < problems; ++b) {
    std::int64_t const rows = batch.x_offsets[b + 1] - batch.x_offsets[b];
    std::int64_t const candidates = batch.y_offsets[b + 1] - batch.y_offsets[b];
    work_before[b + 1] = work_before[b] + rows * candidates + rows;
  }
  std::vector<RowRange> ranges(parts);
  std::int64_t begin = 0;
  for (std::size_t s = 0; s < parts; ++s) {
    std::int64_t const target = work_before[problems] / static_cast<std::int64_t>(parts) *
                                static_cast<std::int64_t>(s + 1);
    std::int64_t end = begin;
    while (end < problems && work_before[end] < target) ++end;
    if (s + 1 == parts) end = problems;
    ranges[s] = {begin, end};
    begin = end;
  }
  return ranges;
}

/// Problems `p` of a batch as a batch of their own, offsets counted from their first rows.
Batch part_of(Batch const& batch, RowRange p) {
  Batch part;
  for (std::int64_t b = p.begin; b <= p.end; ++b) {
    part.x_offsets.push_back(batch.x_offsets[b] - batch.x_offsets[p.begin]);
    part.y_offsets.push_back(batch.y_offsets[b] - batch.y_offsets[p.begin]);
  }
  return part;
}

/// The rows of x and y that problems `p` pair, as the shard reads them; y is x's copy when the
/// two are the same rows, so that a self-join stays one (its zero diagonal).
struct PartInputs {
  ConstMatrixView x, y;
  std::optional<Array> x_copy, y_copy;
};

void inputs_of(Resources const& shard, ConstMatrixView x, ConstMatrixView y, Batch const& batch,
               RowRange p, PartInputs& in) {
  ConstMatrixView const xr =
      cudist::detail::row_slice(x, {batch.x_offsets[p.begin], batch.x_offsets[p.end]});
  ConstMatrixView const yr =
      cudist::detail::row_slice(y, {batch.y_offsets[p.begin], batch.y_offsets[p.end]});
  in.x = cudist::detail::readable_on(shard, xr, in.x_copy);
  in.y = cudist::detail::same_view(xr, yr) ? in.x : cudist::detail::readable_on(shard, yr, in.y_copy);
}

}  // namespace

KnnResult split_knn_batched(char const* who, std::vector<Resources> const& shards,
                            ConstMatrixView x, ConstMatrixView y, Batch const& batch,
                            std::int64_t k, Metric metric, KnnOptions const& options) {
  std::vector<RowRange> const parts = split_problems(batch, shards.size());
  DType const out = distance_output_dtype(x.dtype);
  KnnResult host{Array::allocate(x.rows, k, out, Device::cpu()),
                 Array::allocate(x.rows, k, DType::kInt64, Device::cpu())};
  cudist::detail::run_parts(who, shards, [&](std::size_t s) {
    RowRange const rows{batch.x_offsets[parts[s].begin], batch.x_offsets[parts[s].end]};
    if (rows.size() == 0) return;
    PartInputs in;
    inputs_of(shards[s], x, y, batch, parts[s], in);
    KnnResult const r = knn_batched(shards[s], in.x, in.y, part_of(batch, parts[s]), k, metric, options);
    copy(r.distances.view(), cudist::detail::row_slice(host.distances.view(), rows), shards[s].stream);
    copy(r.indices.view(), cudist::detail::row_slice(host.indices.view(), rows), shards[s].stream);
  });
  return {returned_on(shards[0], std::move(host.distances)),
          returned_on(shards[0], std::move(host.indices))};
}

MatchResult split_match_batched(char const* who, std::vector<Resources> const& shards,
                                ConstMatrixView x, ConstMatrixView y, Batch const& batch,
                                Metric metric, MatchOptions const& options) {
  std::vector<RowRange> const parts = split_problems(batch, shards.size());
  std::vector<MatchResult> found(shards.size());
  cudist::detail::run_parts(who, shards, [&](std::size_t s) {
    if (parts[s].size() == 0) return;
    PartInputs in;
    inputs_of(shards[s], x, y, batch, parts[s], in);
    MatchResult const r = match_batched(shards[s], in.x, in.y, part_of(batch, parts[s]), metric, options);
    void* const stream = shards[s].stream;
    found[s] = {Array::copy_of(r.pairs, Device::cpu(), stream),
                Array::copy_of(r.distances, Device::cpu(), stream),
                Array::copy_of(r.offsets, Device::cpu(), stream)};
  });
  std::int64_t count = 0;
  for (std::size_t s = 0; s < shards.size(); ++s) count += parts[s].size() ? found[s].pairs.rows() : 0;
  std::int64_t const problems = static_cast<std::int64_t>(batch.x_offsets.size()) - 1;
  DType const out = distance_output_dtype(x.dtype);
  MatchResult host{Array::allocate(count, 2, DType::kInt64, Device::cpu()),
                   Array::allocate(count, 1, out, Device::cpu()),
                   Array::allocate(1, problems + 1, DType::kInt64, Device::cpu())};
  std::int64_t* const offsets = host.offsets.data_as<std::int64_t>();
  offsets[0] = 0;
  std::int64_t at = 0;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    if (parts[s].size() == 0) continue;
    MatchResult const& f = found[s];
    RowRange const into{at, at + f.pairs.rows()};
    copy(f.pairs.view(), cudist::detail::row_slice(host.pairs.view(), into));
    copy(f.distances.view(), cudist::detail::row_slice(host.distances.view(), into));
    for (std::int64_t b = parts[s].begin; b < parts[s].end; ++b) {
      offsets[b + 1] = at + f.offsets.data_as<std::int64_t>()[b - parts[s].begin + 1];
    }
    at = into.end;
  }
  return {returned_on(shards[0], std::move(host.pairs)),
          returned_on(shards[0], std::move(host.distances)),
          returned_on(shards[0], std::move(host.offsets))};
}

}  // namespace cudist::neighbors::detail
