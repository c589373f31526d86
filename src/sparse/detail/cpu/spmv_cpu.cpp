// CPU backend of SpMV / SpMM: OpenMP over merge-path chunks. Every chunk covers the same number
// of rows + nonzeros (merge_path.hpp), so a row holding most of the matrix is shared between
// threads instead of stalling one. A chunk writes the rows it holds entirely; the first row it
// finishes (which may have started in earlier chunks) and the row it leaves unfinished are kept
// as partial sums and combined in chunk order afterwards, so every y_i is written once, from
// the same ordered sum, whatever the number of threads.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sparse/detail/backend.hpp"
#include "sparse/detail/dense_operand.hpp"
#include "sparse/detail/dispatch.hpp"
#include "sparse/detail/merge_path.hpp"

namespace cudist::sparse::detail::cpu {
namespace {

// Chunks per thread: a little slack for the dynamic schedule. Chunks of fewer items than
// kMinChunkItems cost more in bookkeeping than they balance.
constexpr std::int64_t kChunksPerThread = 4;
constexpr std::int64_t kMinChunkItems = 4096;

template <class I>
Array merge_path_partition(CsrView const& a, std::int64_t items_per_chunk) {
  std::int64_t const total = a.rows + a.nnz;
  std::int64_t const chunks = (total + items_per_chunk - 1) / items_per_chunk;
  Array tile_rows = Array::allocate(1, chunks + 1, DType::kInt64, Device::cpu());
  auto* out = tile_rows.data_as<std::int64_t>();
  auto const* offsets = static_cast<I const*>(a.row_offsets);
  auto const row_end = [offsets](std::int64_t i) {
    return static_cast<std::int64_t>(offsets[i + 1]);
  };
#pragma omp parallel for
  for (std::int64_t c = 0; c <= chunks; ++c) {
    out[c] = merge_path_rows(std::min(c * items_per_chunk, total), row_end, a.rows, a.nnz);
  }
  return tile_rows;
}

template <class T, class I, class Semiring, class Output>
void spmv_chunks(SpmvAnalysis const& analysis, SpmvProblem const& p, Output const& out) {
  CsrView const& a = p.a;
  auto const* offsets = static_cast<I const*>(a.row_offsets);
  auto const* cols = static_cast<I const*>(a.col_indices);
  auto const* values = static_cast<T const*>(a.values);
  DenseOperand<T const> const x{static_cast<T const*>(p.x), p.x_row_stride, p.x_col_stride};
  DenseOperand<T> const y{static_cast<T*>(p.y), p.y_row_stride, p.y_col_stride};
  auto const* tile_rows = analysis.tile_rows.data_as<std::int64_t>();
  std::int64_t const chunks = analysis.tiles();
  std::int64_t const total = a.rows + a.nnz;
  std::int64_t const ncols = p.ncols;

  auto const write = [&](std::int64_t row, std::int64_t j, T acc) {
    y.at(row, j) = out(acc, out.reads_y() ? y.at(row, j) : T(0));
  };
  // heads: the first row each chunk finishes; carries: the row each chunk leaves unfinished.
  std::vector<T> heads(chunks * ncols), carries(chunks * ncols);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    std::int64_t const first_row = tile_rows[c];
    std::int64_t const last_row = tile_rows[c + 1];  // unfinished (or == rows)
    std::int64_t const k_begin = c * analysis.items_per_tile - first_row;
    std::int64_t const k_end = std::min((c + 1) * analysis.items_per_tile, total) - last_row;
    for (std::int64_t j = 0; j < ncols; ++j) {  // the chunk stays in cache across columns
      for (std::int64_t r = first_row; r <= last_row; ++r) {
        std::int64_t const lo = std::max<std::int64_t>(offsets[r], k_begin);
        std::int64_t const hi = r < last_row ? static_cast<std::int64_t>(offsets[r + 1]) : k_end;
        T acc = Semiring::zero();
        for (std::int64_t k = lo; k < hi; ++k) {
          acc = Semiring::add(acc, Semiring::mul(values[k], x.at(cols[k], j)));
        }
        if (r == last_row) {
          carries[c * ncols + j] = acc;
        } else if (r == first_row) {
          heads[c * ncols + j] = acc;
        } else {
          write(r, j, acc);
        }
      }
    }
  }
  // Partial rows in chunk order: a chunk's head completes the carries of the chunks before it.
  for (std::int64_t j = 0; j < ncols; ++j) {
    T pending = Semiring::zero();
    for (std::int64_t c = 0; c < chunks; ++c) {
      if (tile_rows[c + 1] > tile_rows[c]) {
        write(tile_rows[c], j, Semiring::add(pending, heads[c * ncols + j]));
        pending = carries[c * ncols + j];
      } else {
        pending = Semiring::add(pending, carries[c * ncols + j]);
      }
    }
  }
}

}  // namespace

SpmvAnalysis analyse_spmv(CsrView const& a, SpmvAlgorithm) {
  // One algorithm on the CPU: merge-path chunks serve every row-length distribution.
  SpmvAnalysis analysis;
  analysis.algorithm = SpmvAlgorithm::kMergePath;
  std::int64_t const total = a.rows + a.nnz;
  std::int64_t const chunks_wanted = omp_get_max_threads() * kChunksPerThread;
  analysis.items_per_tile = std::max(kMinChunkItems, (total + chunks_wanted - 1) / chunks_wanted);
  with_csr_types(a.value_dtype, a.index_dtype, [&](auto, auto index_tag) {
    analysis.tile_rows =
        merge_path_partition<typename decltype(index_tag)::type>(a, analysis.items_per_tile);
  });
  return analysis;
}

void spmv(SpmvAnalysis const& analysis, SpmvProblem const& problem) {
  with_csr_types(problem.a.value_dtype, problem.a.index_dtype, [&](auto value_tag, auto index_tag) {
    using T = typename decltype(value_tag)::type;
    using I = typename decltype(index_tag)::type;
    with_semiring<T>(problem, [&](auto semiring, auto const& output) {
      spmv_chunks<T, I, decltype(semiring)>(analysis, problem, output);
    });
  });
}

}  // namespace cudist::sparse::detail::cpu
