// CUDA backend of knn, match and radius: the orchestration. Picks the path (2-best, on-chip row
// buffers, or the sorted second path for large k), the column split and the packed uint8 form,
// allocates the workspaces (stream-ordered), launches, and assembles the results.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "core/cuda/check.hpp"
#include "core/cuda/device_features.hpp"
#include "core/detail/expects.hpp"
#include "cudist/core/error.hpp"
#include "core/detail/validate_view.hpp"
#include "distance/detail/backend.hpp"
#include "distance/detail/cuda/packed_u8_l2.cuh"
#include "distance/detail/cuda/packed_u8_rows.hpp"
#include "neighbors/detail/backend.hpp"
#include "neighbors/detail/cuda/bounded_search.hpp"
#include "neighbors/detail/cuda/exact_u8_l2.hpp"
#include "neighbors/detail/cuda/gemm_knn.hpp"
#include "neighbors/detail/cuda/fused_launch.hpp"
#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/match_finish.cuh"
#include "neighbors/detail/cuda/merge_chunks.cuh"
#include "neighbors/detail/cuda/radius_finish.cuh"
#include "neighbors/detail/cuda/select_policy.hpp"
#include "neighbors/detail/cuda/streamed_database.hpp"
#include "neighbors/detail/cuda/materialized_paths.hpp"
#include "neighbors/detail/cuda/workspace.cuh"

namespace cudist::neighbors::detail::cuda {
namespace {

using cudist::detail::OpKind;

InputKind input_kind(SelectProblem const& p) {
  switch (p.pairwise.x.dtype) {
    case DType::kFloat32: return InputKind::kFloat;
    case DType::kFloat64: return InputKind::kDouble;
    default: return InputKind::kInteger;  // uint8 or int8 bytes, or 32-bit words
  }
}

/// The key the fused kernel ranks on (rank_key.hpp): exact uint32 for bit Hamming and packed
/// uint8 L2, else the finished float / double value.
enum class KeyKind { kFloat, kDouble, kUInt32 };

KeyKind key_kind(SelectProblem const& p) {
  if (p.distance_dtype == DType::kFloat64) return KeyKind::kDouble;
  OpKind const kind = p.pairwise.op.kind;
  bool const words = p.pairwise.x.dtype == DType::kInt32;
  if (kind == OpKind::kXorPopcount || (words && kind == OpKind::kSqDiffSum)) return KeyKind::kUInt32;
  return KeyKind::kFloat;
}

template <class F>
void with_key_type(KeyKind kind, F&& f) {
  switch (kind) {
    case KeyKind::kFloat: return f(float{});
    case KeyKind::kDouble: return f(double{});
    case KeyKind::kUInt32: return f(std::uint32_t{});
  }
}

std::size_t entry_bytes(SelectProblem const& p) {
  return p.distance_dtype == DType::kFloat64 ? sizeof(WideEntry) : sizeof(std::uint64_t);
}

std::int64_t max_on_chip_k(SelectProblem const& p) {
  return entry_bytes(p) == sizeof(WideEntry) ? kMaxOnChipK16 : kMaxOnChipK8;
}

// ---- Work decomposition ----

struct GridPlan {
  WorkGrid grid{};
  std::int64_t blocks = 0;
  std::optional<Array> table;  // a batch's row tiles, on the device
};

/// How a search splits its columns into chunks: unchained (balance_blocks), chained (each chunk
/// starts from an earlier chunk's answers: four waves at least), or the byte search, chained
/// (byte_search_chunks).
enum class ChunkRule { kUnchained, kChained, kChainedBytes };

/// min_chunks: the least column chunks (a streamed database's: kStreamedParts), where y has
/// that many column tiles.
GridPlan plan_grid(SelectProblem const& p, std::size_t block_smem, ChunkRule rule, cudaStream_t stream,
                   int min_chunks = 1) {
  constexpr int kRows = WorkGrid::kTileRows;
  std::int64_t const slots =
      static_cast<std::int64_t>(cudist::detail::cuda::multiprocessors()) * (block_smem <= kTwoBlocksSmem ? 2 : 1);

  GridPlan g;
  bool const batch = p.problems() > 1;
  std::vector<std::int64_t> tiles;  // RowTile fields, 5 per tile
  std::int64_t row_tiles = 0, col_tiles = 0;
  for (std::int64_t b = 0; b < p.problems(); ++b) {
    std::int64_t const xb = p.x_offsets[b], xe = p.x_offsets[b + 1];
    std::int64_t const yb = p.y_offsets[b], ye = p.y_offsets[b + 1];
    col_tiles = std::max(col_tiles, (ye - yb + kRows - 1) / kRows);
    for (std::int64_t r = xb; r < xe; r += kRows, ++row_tiles) {
      if (batch) tiles.insert(tiles.end(), {r, xe, xb, yb, ye});
    }
  }
  g.grid.row_tiles = row_tiles;
  std::int64_t const least = min_chunks * row_tiles;
  switch (rule) {
    case ChunkRule::kUnchained:
      g.grid.chunks =
          choose_chunks(row_tiles, col_tiles, slots, std::max(least, balance_blocks(row_tiles, col_tiles, slots)));
      break;
    case ChunkRule::kChained: g.grid.chunks = choose_chunks(row_tiles, col_tiles, slots, std::max(least, 4 * slots)); break;
    case ChunkRule::kChainedBytes: g.grid.chunks = byte_search_chunks(row_tiles, col_tiles, slots); break;
  }
  g.blocks = row_tiles * g.grid.chunks;
  CUDIST_EXPECTS(g.blocks <= std::numeric_limits<int>::max(), "neighbours: " << row_tiles << " row tiles are beyond one launch");
  g.grid.single = RowTile{0, p.m(), 0, 0, p.n()};
  if (batch && !tiles.empty()) {
    static_assert(sizeof(RowTile) == 5 * sizeof(std::int64_t), "RowTile is five int64");
    g.table = upload(tiles, stream);
    g.grid.tiles = static_cast<RowTile const*>(g.table->data());
  }
  return g;
}

// ---- uint8 squared L2 on 32-bit words (dp4a, or int8 MMA on sm_80+: fused_launch.cuh) ----

using cudist::detail::cuda::as_words;
using cudist::detail::cuda::kMaxPackedU8Cols;

/// Whether the fused kernel reads the rows as 32-bit words of four bytes, uint8 or int8
/// (packed_u8_l2.cuh).
bool packable(SelectProblem const& p) {
  return p.pairwise.op.kind == OpKind::kSqDiffSum && p.pairwise.x.cols <= kMaxPackedU8Cols &&
         cudist::detail::cuda::rows_are_words(p.pairwise.x, p.pairwise.y);
}

/// The rows as the fused kernel reads them: packable byte rows as words, their signedness in the
/// op (enough to choose a path; fused_form adds the norms).
SelectProblem words_form(SelectProblem const& p) {
  if (!packable(p)) return p;
  SelectProblem q = p;
  q.pairwise.x = as_words(p.pairwise.x);
  q.pairwise.y = as_words(p.pairwise.y);
  q.pairwise.op.signed_bytes = p.pairwise.x.dtype == DType::kInt8;
  return q;
}

/// Bit rows read as words (hamming_bits; the planner made the word views where the rows allow).
bool bit_words(SelectProblem const& p) {
  return p.pairwise.op.kind == OpKind::kXorPopcount && p.pairwise.x.dtype == DType::kInt32;
}

/// The problem as the fused kernel runs it: packable byte rows as words, with the rows' sums of
/// squares as norms, and bit rows' bit counts as norms for the tensor-core search's expansion
/// (|a| + |b| - 2 |a & b|; the SIMT engine's XOR + popcount reads none). Kept alive in `keep`.
SelectProblem fused_form(SelectProblem const& p, std::vector<Array>& keep, cudaStream_t stream) {
  using cudist::detail::cuda::RowSum;
  if (!packable(p) && !bit_words(p)) return p;
  SelectProblem q = words_form(p);
  RowSum const sums = bit_words(p) ? RowSum::kBitCounts : cudist::detail::cuda::squares_of(q.pairwise.op.signed_bytes);
  std::tie(q.pairwise.op.x_norms, q.pairwise.op.y_norms) =
      cudist::detail::cuda::row_sums(q.pairwise.x, q.pairwise.y, sums, keep, stream);
  return q;
}

// ---- knn ----

using FusedEntry = void (*)(FusedLaunch const&, SelectArgs const&, cudaStream_t);

FusedEntry entry_for(FusedEntry const (&by_kind)[3], SelectProblem const& p) {
  return by_kind[static_cast<int>(input_kind(p))];
}

constexpr FusedEntry kTwoBest[3] = {run_two_best_float, run_two_best_double, run_two_best_integer};
constexpr FusedEntry kTopK[3] = {run_top_k_float, run_top_k_double, run_top_k_integer};
constexpr FusedEntry kRadius[3] = {run_radius_float, run_radius_double, run_radius_integer};

/// Shared memory of a fused knn block: the engine's tiles and the consumer's per-row state. An
/// upper bound of the kernels' own sizes (sm_90 build: float keys 73 KB for k <= 2, 164 KB for
/// k = 64; double keys 113 KB and 165 KB for k = 32).
std::size_t fused_knn_smem(SelectProblem const& p, std::int64_t k) {
  std::size_t const entry = entry_bytes(p);
  if (k <= 2) return kEngineSmem + 8 * 256 * (2 * entry + sizeof(double));
  auto const capacity = static_cast<std::size_t>(row_buffer_capacity(k));
  return kEngineSmem + 128 * (capacity * entry + entry + sizeof(double) + sizeof(int));
}

/// k <= the on-chip limit: the fused kernel (or a tensor-core search: bounded_search.hpp for
/// float32 squared L2, inner product and cosine, exact_u8_l2.hpp for uint8) leaves each chunk's
/// best k per row, a warp per row merges.
void fused_knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
               void* column_best, cudaStream_t stream) {
  bool const two_best = k <= 2;
  std::size_t const entry = entry_bytes(p);
  SelectArgs a = nearest_args(k);
  bool const exact_u8 = exact_u8_l2_applies(p, k, column_best != nullptr);
  bool const bounded = bounded_search_applies(p, k, column_best != nullptr);
  std::size_t const smem = exact_u8  ? exact_u8_l2_smem(p, k)
                           : bounded ? bounded_search_smem(p, k)
                                     : fused_knn_smem(p, k);
  bool const chained = (exact_u8 || bounded) && !two_best;  // top-k chunks start from earlier chunks' answers
  ChunkRule const rule = !chained ? ChunkRule::kUnchained : exact_u8 ? ChunkRule::kChainedBytes : ChunkRule::kChained;
  // knn() leaves y pending only for the tensor-core search (streams_chunks).
  bool const streamed = p.y_pending() && bounded;
  GridPlan const g = plan_grid(p, smem, rule, stream, streamed ? kStreamedParts : 1);
  std::vector<Array> keep;  // the rounded rows, freed in stream order after the launch
  std::optional<BoundedForm> form;
  if (bounded) {
    try {
      form = bounded_search_form(p, keep, stream);
    } catch (OutOfMemory const&) {  // no room for the float16 copies: the SIMT path needs none
    }
  }
  // Before the workspaces, and x's rounded rows let go: the call again on y copied whole holds
  // none of this one's memory.
  if (p.y_pending() && !form) {  // the SIMT path reads y whole
    keep.clear();
    return fused_knn(with_y_copied(p, stream), k, distances, indices, column_best, stream);
  }
  Array partial = device_bytes(static_cast<std::size_t>(p.m() * g.grid.chunks * k) * entry, stream);
  a.partial = partial.data();
  a.chunks = g.grid.chunks;
  FusedLaunch f{&p, g.grid, g.blocks, column_best};
  std::optional<Array> row_bars;  // the chunks of a row pool their bars (bounded_search_kernel.cuh)
  if (form && g.grid.chunks > 1) {
    row_bars = device_bytes(static_cast<std::size_t>(p.m()) * sizeof(std::uint32_t), stream);
    CUDIST_CUDA_TRY(cudaMemsetAsync(row_bars->data(), 0xff, row_bars->bytes(), stream));  // no bar yet
    f.row_bars = static_cast<std::uint32_t*>(row_bars->data());
    f.grid.chunks_outer = true;
  }
  std::optional<Array> finished_chunks;  // the chain's words (chunk_chain.cuh)
  if (chained && (form || exact_u8) && g.grid.chunks > 1) {
    finished_chunks = device_bytes(static_cast<std::size_t>(g.grid.row_tiles) * sizeof(int), stream);
    CUDIST_CUDA_TRY(cudaMemsetAsync(finished_chunks->data(), 0, finished_chunks->bytes(), stream));
    f.finished_chunks = static_cast<int*>(finished_chunks->data());
    f.grid.chunks_outer = true;  // a chunk's predecessor has usually finished when it starts
  }
  if (exact_u8) {
    run_exact_u8_l2(f, a, stream);
  } else if (form && p.y_pending()) {
    run_bounded_search_streamed(p, *form, f, a, stream);
  } else if (form) {
    run_bounded_search(*form, f, a, stream);
  } else {
    entry_for(two_best ? kTwoBest : kTopK, p)(f, a, stream);
  }

  with_key_type(key_kind(p), [&](auto key) {
    using Kernel = MergeChunksKernel<decltype(key)>;
    typename Kernel::Params mp{};
    mp.partial = static_cast<typename Kernel::Entry const*>(partial.data());
    mp.chunks = g.grid.chunks;
    mp.per_chunk = static_cast<int>(k);
    mp.m = p.m();
    mp.k = k;
    mp.distances = static_cast<typename Kernel::Out*>(distances.data);
    mp.ld_distances = distances.stride;
    mp.indices = static_cast<std::int64_t*>(indices.data);
    mp.ld_indices = indices.stride;
    mp.spec = p.rank;
    launch<Kernel>(p.m(), Kernel::kRowsPerBlock, mp, stream);
  });
}

/// Whether knn with this k runs fused (else the sorted path).
bool fused_knn_for(SelectProblem const& p, std::int64_t k) {
  // Where the block's state does not fit the device (sm_75 to sm_89 for the larger k), the
  // sorted path, which every GPU runs, selects instead.
  return k <= max_on_chip_k(p) && has_fused_path(p.pairwise.op.kind) &&
         fused_knn_smem(p, k) <= cudist::detail::cuda::max_block_shared_memory();
}

/// p with its bfloat16 rows widened to float32 (the copies in `keep`), as the planner converts
/// every other 16-bit input: knn leaves bfloat16 rows that need no preparation to the GEMM path,
/// which reads them as they are (plan_select's keep_bfloat16).
SelectProblem widened(SelectProblem p, std::vector<Array>& keep, cudaStream_t stream) {
  auto const widen = [&](ConstMatrixView rows) {
    keep.push_back(device_array(rows.rows, rows.cols, DType::kFloat32, stream));
    cudist::detail::RowPrep prep;
    prep.in = rows;
    prep.out = keep.back().view();
    cudist::detail::cuda::prepare_rows(prep, stream);
    return ConstMatrixView(keep.back().view());
  };
  bool const self = cudist::detail::same_view(p.pairwise.x, p.pairwise.y);
  p.pairwise.x = widen(p.pairwise.x);
  p.pairwise.y = self ? p.pairwise.x : widen(p.pairwise.y);
  return p;
}

/// knn by the fused or the sorted path (the GEMM path's rows it could not keep come here too).
void knn_on_chip_or_sorted(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
                           void* column_best, cudaStream_t stream) {
  if (p.pairwise.x.dtype == DType::kBFloat16) {
    std::vector<Array> keep;
    return knn_on_chip_or_sorted(widened(p, keep, stream), k, distances, indices, column_best, stream);
  }
  if (!fused_knn_for(p, k)) return sorted_knn(p, k, distances, indices, stream);
  std::vector<Array> keep;
  fused_knn(fused_form(p, keep, stream), k, distances, indices, column_best, stream);
}

/// knn into (m, k) device views; with column_best (64-bit entries, (n)), also each column's best
/// query for the mutual check (fused path only).
void knn_into(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices,
              void* column_best, cudaStream_t stream) {
  if (p.m() == 0) return;
  // Inner product / cosine beyond the tensor-core search's k or depth: cuBLAS and exact keys;
  // the rows whose kept pairs outgrow their lists (ties in great number, NaN rows) by the paths
  // below, and the whole call where the copies do not fit the GPU.
  if (column_best == nullptr && gemm_knn_applies(p, k, max_on_chip_k(p))) {
    auto const redo = [&](SelectProblem const& q, MatrixView d, MatrixView i) {
      knn_on_chip_or_sorted(q, k, d, i, nullptr, stream);
    };
    try {
      if (gemm_knn(p, k, distances, indices, redo, stream)) return;
    } catch (OutOfMemory const&) {  // no room for its copies and lists: the sorted path needs less
    }
  }
  knn_on_chip_or_sorted(p, k, distances, indices, column_best, stream);
}

/// Whether knn_into(p, k) without an observer takes the tensor-core search, the one path that
/// searches a streamed database (SelectProblem::y_host) as it arrives: fused_knn's choice for a
/// single float32 problem that the GEMM path does not take.
bool streams_chunks(SelectProblem const& p, std::int64_t k) {
  return p.problems() == 1 && p.pairwise.x.dtype == DType::kFloat32 &&
         !gemm_knn_applies(p, k, max_on_chip_k(p)) && fused_knn_for(p, k) && bounded_search_applies(p, k, false);
}

/// The problem seen from y: each row of y queries the rows of x.
SelectProblem swapped(SelectProblem const& p) {
  SelectProblem r = p;
  std::swap(r.pairwise.x, r.pairwise.y);
  std::swap(r.pairwise.op.x_norms, r.pairwise.op.y_norms);
  std::swap(r.x_offsets, r.y_offsets);
  return r;
}

/// best_query[j]: the query row that column j is nearest to. Fused as an observer of the 2-NN
/// pass where entries are 64-bit; float64 entries are 128-bit (no atomic minimum), the sorted
/// path has no observer, and the tensor-core searches rule out pairs that the observer would
/// need, so there a second pass selects the 1-NN of each row of y among the rows of x (the same
/// sums: (a - b)^2 = (b - a)^2 exactly, so the same answer as the observer's).
Array best_queries(SelectProblem const& p, MatrixView d2, MatrixView i2, cudaStream_t stream) {
  Array best = device_array(1, p.n(), DType::kInt64, stream);
  if (entry_bytes(p) == sizeof(WideEntry) || !fused_knn_for(p, 2) || bounded_search_applies(p, 2, false) ||
      exact_u8_l2_applies(words_form(p), 2, false)) {
    knn_into(p, 2, d2, i2, nullptr, stream);
    Array rd = device_array(p.n(), 1, p.distance_dtype, stream);
    MatrixView const bi(best.data(), p.n(), 1, 1, DType::kInt64, Memory::kDevice);
    knn_into(swapped(p), 1, rd.view(), bi, nullptr, stream);
    return best;
  }
  Array entries = device_array(1, p.n(), DType::kInt64, stream);
  if (entries.bytes() > 0) {  // all empty: every byte 0xff
    CUDIST_CUDA_TRY(cudaMemsetAsync(entries.data(), 0xff, entries.bytes(), stream));
  }
  knn_into(p, 2, d2, i2, entries.data(), stream);
  with_key_type(packable(p) ? KeyKind::kUInt32 : key_kind(p), [&](auto key) {
    using Kernel = ColumnBestQueryKernel<decltype(key)>;
    if constexpr (sizeof(typename Kernel::Entry) == sizeof(std::uint64_t)) {
      launch<Kernel>(p.n(), Kernel::kThreads,
                     {static_cast<typename Kernel::Entry const*>(entries.data()), p.n(), best.data_as<std::int64_t>()},
                     stream);
    }
  });
  return best;
}

template <class Out>
MatchResult finish_matches(SelectProblem const& p, MatchCriteria const& c, Array const& d2,
                           Array const& i2, std::optional<Array> const& best_query, cudaStream_t stream) {
  std::int64_t const m = p.m();
  int const problems = static_cast<int>(p.problems());
  // Both problems' offsets in one upload: each small copy is a step of the GPU's chain after the
  // search (docs/tuning.md, "match's scatter before its one synchronization").
  std::vector<std::int64_t> offsets = p.x_offsets;
  offsets.insert(offsets.end(), p.y_offsets.begin(), p.y_offsets.end());
  Array const offsets_d = upload(offsets, stream);
  auto const* x_offsets = offsets_d.data_as<std::int64_t>();
  Array position = device_array(1, m + 1, DType::kInt32, stream);
  // Room for every query's match, so that the scatter runs before the one synchronization and
  // nothing but the count waits for it (allocations and a launch after it left the GPU idle). The
  // result keeps the unused rows' memory: 20 bytes a query, less than d2 and i2 held.
  MatchResult r{device_array(m, 2, DType::kInt64, stream), device_array(m, 1, p.distance_dtype, stream),
                device_array(1, problems + 1, DType::kInt64, stream)};
  typename MatchFlagsKernel<Out>::Params flags{d2.data_as<Out>(), i2.data_as<std::int64_t>(),
                                               best_query ? best_query->data_as<std::int64_t>() : nullptr,
                                               x_offsets, x_offsets + problems + 1, problems, m, c, nullptr};
  typename MatchScatterKernel<Out>::Params scatter{d2.data_as<Out>(), i2.data_as<std::int64_t>(), nullptr,
                                                   position.data_as<int>(), x_offsets, problems, m,
                                                   r.pairs.data_as<std::int64_t>(), r.distances.data_as<Out>(),
                                                   r.offsets.data_as<std::int64_t>()};
  if (m <= kBlockFinishRows) {
    launch<MatchFinishBlockKernel<Out>>(1, 1, {flags, scatter, position.data_as<int>()}, stream);
  } else {
    Array accepted = device_array(1, m + 1, DType::kInt32, stream);  // freed in stream order
    flags.accepted = accepted.data_as<int>();
    scatter.accepted = accepted.data_as<int>();
    launch<MatchFlagsKernel<Out>>(m + 1, 256, flags, stream);
    exclusive_sum(accepted.data_as<int>(), position.data_as<int>(), m + 1, stream);
    launch<MatchScatterKernel<Out>>(std::max<std::int64_t>(m, problems + 1), 256, scatter, stream);
  }
  std::int64_t const count = download_one(position.data_as<int>() + m, stream);  // synchronizes
  r.pairs = r.pairs.leading_rows(count);
  r.distances = r.distances.leading_rows(count);
  return r;
}

}  // namespace

void knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices, void* stream) {
  auto const s = static_cast<cudaStream_t>(stream);
  if (p.y_pending() && !streams_chunks(p, k)) return knn_into(with_y_copied(p, s), k, distances, indices, nullptr, s);
  knn_into(p, k, distances, indices, nullptr, s);
}

MatchResult match(SelectProblem const& p, MatchCriteria const& criteria, void* stream_handle) {
  auto const stream = static_cast<cudaStream_t>(stream_handle);
  Array d2 = device_array(p.m(), 2, p.distance_dtype, stream);
  Array i2 = device_array(p.m(), 2, DType::kInt64, stream);
  std::optional<Array> best_query;
  if (criteria.mutual && p.m() > 0) {
    best_query = best_queries(p, d2.view(), i2.view(), stream);
  } else {
    knn_into(p, 2, d2.view(), i2.view(), nullptr, stream);
  }
  if (p.distance_dtype == DType::kFloat64) return finish_matches<double>(p, criteria, d2, i2, best_query, stream);
  return finish_matches<float>(p, criteria, d2, i2, best_query, stream);
}

RadiusResult radius(SelectProblem const& p, double r, void* stream_handle) {
  auto const stream = static_cast<cudaStream_t>(stream_handle);
  if (!has_fused_path(p.pairwise.op.kind)) return radius_from_values(p, r, stream);
  std::int64_t const m = p.m();
  std::vector<Array> keep;
  SelectProblem const q = fused_form(p, keep, stream);
  GridPlan const g = plan_grid(q, kEngineSmem, ChunkRule::kUnchained, stream);
  std::int64_t const slots = m * g.grid.chunks;  // (row, chunk) counts, then one for the total

  Array counts = device_array(1, slots + 1, DType::kInt64, stream);
  CUDIST_CUDA_TRY(cudaMemsetAsync(counts.data(), 0, counts.bytes(), stream));
  SelectArgs a;
  a.radius = r;
  a.chunks = g.grid.chunks;
  a.counts = counts.data_as<std::int64_t>();
  FusedLaunch const f{&q, g.grid, g.blocks, nullptr};
  entry_for(kRadius, q)(f, a, stream);
  Array starts = device_array(1, slots + 1, DType::kInt64, stream);
  exclusive_sum(counts.data_as<std::int64_t>(), starts.data_as<std::int64_t>(), slots + 1, stream);
  std::int64_t const total = download_one(starts.data_as<std::int64_t>() + slots, stream);  // synchronizes

  RadiusResult out{device_array(1, m + 1, DType::kInt64, stream), device_array(1, total, DType::kInt64, stream),
                   device_array(1, total, p.distance_dtype, stream)};
  if (total > 0) {
    a.starts = starts.data_as<std::int64_t>();
    a.indices = out.indices.data_as<std::int64_t>();
    a.distances = out.distances.data();
    entry_for(kRadius, q)(f, a, stream);
  }
  launch<RowOffsetsKernel>(m + 1, RowOffsetsKernel::kThreads,
                           {starts.data_as<std::int64_t>(), m, g.grid.chunks, out.offsets.data_as<std::int64_t>()},
                           stream);
  return out;
}

}  // namespace cudist::neighbors::detail::cuda
