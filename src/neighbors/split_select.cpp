// knn / match / radius over a device set: every shard takes a contiguous part of y, selects with
// the single-device backends for all queries, and the answers are merged on the host. Merging on
// the host costs little next to the selection (m x k x shards entries against an m x n x d
// contraction) and needs no peer access or NCCL; docs/multi_gpu.md says why.
#include "neighbors/detail/split_select.hpp"

#include <algorithm>
#include <optional>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/split.hpp"
#include "cudist/core/timeline.hpp"
#include "neighbors/detail/backend.hpp"
#include "neighbors/detail/database_chunks.hpp"
#include "neighbors/detail/plan.hpp"
#include "neighbors/detail/ranked_merge.hpp"

namespace cudist::neighbors::detail {
namespace {

using cudist::detail::readable_on;
using cudist::detail::returned_on;
using cudist::detail::row_slice;
using cudist::detail::RowRange;
using cudist::detail::run_parts;
using cudist::detail::split_rows;

/// One shard's k best rows of its part of y per query, on the host: values as the selection ranks
/// them (euclidean's root not yet taken, so the merge ranks on the squares as the selection
/// does) and indices into the whole of y (-1: no candidate left).
struct ShardBest {
  Array values;
  Array indices;
  RankSpec rank;
  bool ran = false;  // false for an empty part: no candidates
};

/// The backend's k best per query row of a planned problem, values as planned, on the host.
/// @note Synchronizes the shard's stream.
KnnResult best_on_host(Resources const& shard, SelectProblem const& problem, std::int64_t k) {
  Array d = Array::allocate(problem.m(), k, problem.distance_dtype, shard.device, shard.stream);
  Array i = Array::allocate(problem.m(), k, DType::kInt64, shard.device, shard.stream);
  if (shard.device.is_cuda()) {
    cuda::knn(problem, k, d.view(), i.view(), shard.stream);
  } else {
    cpu::knn(problem, k, d.view(), i.view());
  }
  return {Array::copy_of(d.view(), Device::cpu(), shard.stream),
          Array::copy_of(i.view(), Device::cpu(), shard.stream)};
}

ShardBest shard_best(char const* who, Resources const& shard, ConstMatrixView x, ConstMatrixView y,
                     RowRange part, std::int64_t k, Metric metric, MetricParams const& params) {
  ShardBest best;
  if (part.size() == 0 || x.rows == 0) return best;
  ConstMatrixView const part_y = row_slice(y, part);
  if (std::int64_t const chunk_rows = database_chunk_rows(shard, part_y, metric)) {
    // A part in host memory beyond the shard's budget streams through it in chunks, as one
    // device's knn does; its keys merge with the other shards' below.
    best.values = Array::allocate(x.rows, k, distance_output_dtype(x.dtype), Device::cpu());
    best.indices = Array::allocate(x.rows, k, DType::kInt64, Device::cpu());
    KnnOptions options;
    options.params = params;
    options.rank_values = true;
    best.rank = knn_in_database_chunks(who, shard, x, part_y, k, metric, options, best.values.view(),
                                       best.indices.view(), chunk_rows);
  } else {
    std::optional<Array> x_copy, y_copy;
    ConstMatrixView const xs = readable_on(shard, x, x_copy);
    ConstMatrixView const ys = readable_on(shard, part_y, y_copy);
    PlannedSelect planned = plan_select(who, shard, xs, ys, whole(xs, ys), metric, params, false, false);
    best.rank = planned.problem.rank;
    planned.problem.rank.sqrt_distance = false;
    KnnResult host = best_on_host(shard, planned.problem, k);
    best.values = std::move(host.distances);
    best.indices = std::move(host.indices);
  }
  std::int64_t* const j = best.indices.data_as<std::int64_t>();
  for (std::int64_t e = 0; e < best.indices.size(); ++e) j[e] += j[e] >= 0 ? part.begin : 0;
  best.ran = true;
  return best;
}

/// The k best of every shard's part of y, one part per shard, run concurrently.
std::vector<ShardBest> best_per_shard(char const* who, std::vector<Resources> const& shards,
                                      ConstMatrixView x, ConstMatrixView y, std::int64_t k,
                                      Metric metric, MetricParams const& params) {
  std::vector<RowRange> const parts = split_rows(y.rows, shards.size());
  std::vector<ShardBest> best(shards.size());
  run_parts(who, shards, [&](std::size_t s) {
    best[s] = shard_best(who, shards[s], x, y, parts[s], k, metric, params);
  });
  return best;
}

/// The shards' answers as `options` asks them reported: with rank_values, the merge takes no
/// root.
std::vector<ShardBest> reported(std::vector<ShardBest> best, KnnOptions const& options) {
  if (options.rank_values) {
    for (ShardBest& b : best) b.rank.sqrt_distance = false;
  }
  return best;
}

/// The ranking the shards used (the same on every shard that ran).
RankSpec rank_of(std::vector<ShardBest> const& best) {
  for (ShardBest const& b : best) {
    if (b.ran) return b.rank;
  }
  return {};
}

/// A self-join's correction of the parts' answers (the parts compute x against rows of x as two
/// matrices): each row's own entry is dropped, and unless the point is excluded, put back with
/// the value the self-join gives it (`self_values`, (m, 1) on the host).
struct SelfJoinFix {
  bool active = false;
  bool exclude_self = false;
  Array self_values;
};

/// Every row's k best over all shards into host views (m, k), any row stride: the selection's
/// order, the root taken where the selection takes it, missing slots -1 / NaN.
template <class Out>
void merge_best(std::vector<ShardBest> const& best, SelfJoinFix const& fix, std::int64_t k,
                MatrixView distances, MatrixView indices) {
  RankSpec const rank = rank_of(best);
  std::vector<RankedList<Out>> lists;
  for (ShardBest const& b : best) {
    if (b.ran) {
      std::int64_t const cols = b.values.cols();
      lists.push_back({b.values.data_as<Out>(), cols, b.indices.data_as<std::int64_t>(), cols, cols});
    }
  }
  merge_ranked_rows<Out>(lists, {rank.similarity, rank.sqrt_distance}, k, distances, indices, [&](std::int64_t i) {
    RowAdjustment<Out> adjust;
    if (fix.active) {  // the point's own entry, dropped, and put back with the self-join's value
      adjust.drop = i;
      adjust.add = !fix.exclude_self;
      adjust.add_index = i;
      if (adjust.add) adjust.add_value = fix.self_values.data_as<Out>()[i];
    }
    return adjust;
  });
}

void merge_into(std::vector<ShardBest> const& best, std::int64_t k, MatrixView distances,
                MatrixView indices, SelfJoinFix const& fix = {}) {
  cudist::TimelineSpan const span("merge the parts' answers on the host");
  if (distances.dtype == DType::kFloat64) {
    merge_best<double>(best, fix, k, distances, indices);
  } else {
    merge_best<float>(best, fix, k, distances, indices);
  }
}

/// Every row's k best over all shards, as host arrays (m, k).
KnnResult merged(std::vector<ShardBest> const& best, std::int64_t m, std::int64_t k, DType out,
                 SelfJoinFix const& fix = {}) {
  KnnResult r{Array::allocate(m, k, out, Device::cpu()),
              Array::allocate(m, k, DType::kInt64, Device::cpu())};
  merge_into(best, k, r.distances.view(), r.indices.view(), fix);
  return r;
}

/// Each point's value against itself as the self-join gives it (exact 0 on a distance's diagonal
/// where finite), ranked like the parts' values (no root taken): m problems of one row against
/// itself in one batched call on `shard`, (m, 1) on the host.
Array self_values(char const* who, Resources const& shard, ConstMatrixView x, Metric metric,
                  MetricParams const& params) {
  cudist::detail::ScopedDevice const device_scope(shard.device);
  std::optional<Array> x_copy;
  ConstMatrixView const xs = readable_on(shard, x, x_copy);
  Batch diagonal;
  for (std::int64_t i = 0; i <= x.rows; ++i) diagonal.x_offsets.push_back(i);
  diagonal.y_offsets = diagonal.x_offsets;
  PlannedSelect planned = plan_select(who, shard, xs, xs, diagonal, metric, params, true, false);
  planned.problem.rank.sqrt_distance = false;
  return best_on_host(shard, planned.problem, 1).distances;
}

/// The accepted matches, on the host: the merged best two per query through the ratio test and
/// the distance limit, and with `mutual` the train row's best query (reverse) must be the query.
template <class Out>
MatchResult accepted_matches(KnnResult const& two, std::vector<std::int64_t> const& reverse,
                             MatchCriteria const& c) {
  std::int64_t const m = two.indices.rows();
  Out const* d = two.distances.data_as<Out>();
  std::int64_t const* j = two.indices.data_as<std::int64_t>();
  std::vector<std::int64_t> queries;
  for (std::int64_t i = 0; i < m; ++i) {
    if (j[2 * i] < 0 || !passes_ratio_test(d[2 * i], j[2 * i + 1], d[2 * i + 1], c)) continue;
    if (c.mutual && reverse[j[2 * i]] != i) continue;
    queries.push_back(i);
  }
  auto const count = static_cast<std::int64_t>(queries.size());
  MatchResult r{Array::allocate(count, 2, DType::kInt64, Device::cpu()),
                Array::allocate(count, 1, two.distances.dtype(), Device::cpu()),
                Array::allocate(1, 2, DType::kInt64, Device::cpu())};
  for (std::int64_t q = 0; q < count; ++q) {
    std::int64_t const i = queries[q];
    r.pairs.data_as<std::int64_t>()[2 * q] = i;
    r.pairs.data_as<std::int64_t>()[2 * q + 1] = j[2 * i];
    r.distances.data_as<Out>()[q] = d[2 * i];
  }
  r.offsets.data_as<std::int64_t>()[0] = 0;
  r.offsets.data_as<std::int64_t>()[1] = count;
  return r;
}

}  // namespace

bool splits_queries(std::vector<Resources> const& shards, ConstMatrixView x, ConstMatrixView y,
                    Metric metric) {
  // With few queries a search is bound by reading y, which a split of y divides among the shards
  // and a split of the queries does not.
  constexpr std::int64_t kQueryRowsPerShard = 2048;
  if (x.rows < kQueryRowsPerShard * static_cast<std::int64_t>(shards.size())) return false;
  // y on a GPU crosses to every other one whole: through the host where the GPUs have no peer
  // access, a 205 MB y on cuda:0 made two H200s slower than one (68 ms against 58.5).
  if (cudist::detail::resolve_memory(y.data, y.memory) != Memory::kHost &&
      !cudist::detail::peer_linked(shards)) {
    return false;
  }
  for (Resources const& shard : shards) {
    if (database_rows_held(shard, y, metric) < y.rows) return false;
  }
  return true;
}

namespace {

/// y (host memory) on every shard's GPU, each shard uploading one part of it: the host's memory
/// is read once in all, not once per GPU. take_other_parts() completes shard s's copy from the
/// other shards' over the GPUs' own links, on s's stream.
class SharedUpload {
 public:
  SharedUpload(char const* who, std::vector<Resources> const& shards, ConstMatrixView y)
      : shards_(shards), parts_(split_rows(y.rows, shards.size())), copies_(shards.size()) {
    run_parts(who, shards, [&](std::size_t s) {
      cudist::TimelineSpan const span("this device's part of y from the host");
      copies_[s] = Array::allocate(y.rows, y.cols, y.dtype, shards[s].device, shards[s].stream);
      copy(row_slice(y, parts_[s]), row_slice(copies_[s].view(), parts_[s]), shards[s].stream);
    });
  }

  ConstMatrixView take_other_parts(std::size_t s) {
    cudist::TimelineSpan const span("the other parts of y from the peers (enqueued)");
    for (std::size_t t = 0; t < copies_.size(); ++t) {
      if (t == s) continue;
      copy(row_slice(copies_[t].view(), parts_[t]), row_slice(copies_[s].view(), parts_[t]),
           shards_[s].stream);
    }
    return copies_[s].view();
  }

 private:
  std::vector<Resources> const& shards_;
  std::vector<RowRange> parts_;
  std::vector<Array> copies_;
};

}  // namespace

void split_knn_queries(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                       ConstMatrixView y, std::int64_t k, Metric metric, KnnOptions const& options,
                       MatrixView distances, MatrixView indices) {
  std::vector<RowRange> const parts = split_rows(x.rows, shards.size());
  // Where the GPUs reach each other's memory, every GPU uploads a part of y and takes the rest from
  // its peers, instead of each uploading all of it: on the 2-GPU machines here the GPUs' link
  // carried an NCCL all-reduce at 329 GB/s, the host's page-locked uploads ~50 GB/s (run 36).
  // Not where each GPU's search streams y from the host as it goes (plan.hpp, streams_database):
  // there the copies overlap the searches, which the exchange has to wait for.
  std::optional<SharedUpload> shared;
  if (shards.size() > 1 && cudist::detail::resolve_memory(y.data, y.memory) == Memory::kHost &&
      cudist::detail::peer_linked(shards) && !streams_database(shards[0], y, metric, options.params)) {
    shared.emplace(who, shards, y);
  }
  run_parts(who, shards, [&](std::size_t s) {
    if (parts[s].size() == 0) return;
    std::optional<Array> x_copy, y_copy;
    ConstMatrixView const xs = readable_on(shards[s], row_slice(x, parts[s]), x_copy);
    ConstMatrixView const ys = shared ? shared->take_other_parts(s) : readable_on(shards[s], y, y_copy);
    cudist::knn(shards[s], xs, ys, k, metric, row_slice(distances, parts[s]),
                row_slice(indices, parts[s]), options);
    // Outputs on a GPU: the caller's stream may read them once the call returns.
    if (shards[s].device.is_cuda()) cudist::detail::cuda_stream_synchronize(shards[s].stream);
  });
}

KnnResult split_knn(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                    ConstMatrixView y, std::int64_t k, Metric metric, KnnOptions const& options) {
  std::vector<ShardBest> const best =
      reported(best_per_shard(who, shards, x, y, k, metric, options.params), options);
  KnnResult host = merged(best, x.rows, k, distance_output_dtype(x.dtype));
  return {returned_on(shards[0], std::move(host.distances)),
          returned_on(shards[0], std::move(host.indices))};
}

void split_knn(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
               ConstMatrixView y, std::int64_t k, Metric metric, KnnOptions const& options,
               MatrixView distances, MatrixView indices) {
  std::vector<ShardBest> const best =
      reported(best_per_shard(who, shards, x, y, k, metric, options.params), options);
  merge_into(best, k, distances, indices);
}

KnnResult split_self_knn(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                         std::int64_t k, Metric metric, KnnOptions const& options,
                         bool exclude_self) {
  // One more than k from each part: a part's best may include the point itself, dropped below.
  std::vector<ShardBest> const best =
      reported(best_per_shard(who, shards, x, x, k + 1, metric, options.params), options);
  SelfJoinFix fix;
  fix.active = true;
  fix.exclude_self = exclude_self;
  if (!exclude_self && x.rows > 0) fix.self_values = self_values(who, shards[0], x, metric, options.params);
  KnnResult host = merged(best, x.rows, k, distance_output_dtype(x.dtype), fix);
  return {returned_on(shards[0], std::move(host.distances)),
          returned_on(shards[0], std::move(host.indices))};
}

MatchResult split_match(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                        ConstMatrixView y, Metric metric, MatchOptions const& options) {
  MatchCriteria const criteria{options.ratio, options.mutual, options.max_distance};
  std::vector<ShardBest> const best = best_per_shard(who, shards, x, y, 2, metric, options.params);
  KnnResult const two = merged(best, x.rows, 2, distance_output_dtype(x.dtype));
  // Each train row's best query: its shard saw every query, so this direction needs no merge.
  std::vector<std::int64_t> reverse(criteria.mutual ? y.rows : 0, -1);
  if (criteria.mutual) {
    std::vector<RowRange> const parts = split_rows(y.rows, shards.size());
    run_parts(who, shards, [&](std::size_t s) {
      ShardBest const b = shard_best(who, shards[s], row_slice(y, parts[s]), x, {0, x.rows}, 1,
                                     metric, options.params);
      if (!b.ran) return;
      std::copy_n(b.indices.data_as<std::int64_t>(), parts[s].size(), reverse.begin() + parts[s].begin);
    });
  }
  MatchResult host = two.distances.dtype() == DType::kFloat64
                         ? accepted_matches<double>(two, reverse, criteria)
                         : accepted_matches<float>(two, reverse, criteria);
  return {returned_on(shards[0], std::move(host.pairs)),
          returned_on(shards[0], std::move(host.distances)),
          returned_on(shards[0], std::move(host.offsets))};
}

RadiusResult split_radius(char const* who, std::vector<Resources> const& shards, ConstMatrixView x,
                          ConstMatrixView y, double r, Metric metric, MetricParams const& params) {
  std::vector<RowRange> const parts = split_rows(y.rows, shards.size());
  std::vector<RadiusResult> found(shards.size());
  run_parts(who, shards, [&](std::size_t s) {
    if (parts[s].size() == 0) return;
    std::optional<Array> x_copy, y_copy;
    RadiusResult const part = radius(shards[s], readable_on(shards[s], x, x_copy),
                                     readable_on(shards[s], row_slice(y, parts[s]), y_copy), r,
                                     metric, params);
    void* const stream = shards[s].stream;
    found[s] = {Array::copy_of(part.offsets, Device::cpu(), stream),
                Array::copy_of(part.indices, Device::cpu(), stream),
                Array::copy_of(part.distances, Device::cpu(), stream)};
  });
  std::int64_t const m = x.rows;
  Array offsets = Array::allocate(1, m + 1, DType::kInt64, Device::cpu());
  std::int64_t* const o = offsets.data_as<std::int64_t>();
  o[0] = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    o[i + 1] = o[i];
    for (std::size_t s = 0; s < shards.size(); ++s) {
      if (parts[s].size() == 0) continue;
      std::int64_t const* so = found[s].offsets.data_as<std::int64_t>();
      o[i + 1] += so[i + 1] - so[i];
    }
  }
  DType const out = distance_output_dtype(x.dtype);
  Array indices = Array::allocate(1, o[m], DType::kInt64, Device::cpu());
  Array distances = Array::allocate(1, o[m], out, Device::cpu());
  std::size_t const width = size_of(out);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < m; ++i) {
    std::int64_t at = o[i];
    for (std::size_t s = 0; s < shards.size(); ++s) {
      if (parts[s].size() == 0) continue;
      std::int64_t const* so = found[s].offsets.data_as<std::int64_t>();
      for (std::int64_t e = so[i]; e < so[i + 1]; ++e, ++at) {
        indices.data_as<std::int64_t>()[at] = found[s].indices.data_as<std::int64_t>()[e] + parts[s].begin;
        std::copy_n(static_cast<char const*>(found[s].distances.data()) + e * width, width,
                    static_cast<char*>(distances.data()) + at * width);
      }
    }
  }
  return {returned_on(shards[0], std::move(offsets)), returned_on(shards[0], std::move(indices)),
          returned_on(shards[0], std::move(distances))};
}

}  // namespace cudist::neighbors::detail
