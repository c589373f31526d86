#include "neighbors/detail/cuda/gemm_knn.hpp"

#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "core/cuda/check.hpp"
#include "core/cuda/cublas_library.hpp"
#include "core/cuda/device_features.hpp"
#include "core/detail/interrupt_check.hpp"
#include "core/detail/validate_view.hpp"
#include "neighbors/detail/cuda/bounded_search.hpp"
#include "neighbors/detail/cuda/gemm_knn_kernels.cuh"
#include "neighbors/detail/cuda/launch.cuh"
#include "neighbors/detail/cuda/workspace.cuh"
#include "neighbors/detail/expansion_bound.hpp"

namespace cudist::neighbors::detail::cuda {
namespace {

/// Query rows per GEMM at most, and the bytes of one chunk of the product. Chunks of 5000 x 1024
/// (20 MB, in L2 from the GEMM to the filter) took K4 97.8 ms: 1954 GEMMs of 10 us each, whose
/// ramp and tail and host calls cost more than reading larger chunks back from HBM (10000 x 3840:
/// 71.2 ms). Filtering on a second stream while the next GEMM runs gained nothing (70.9 ms): the
/// GEMM's blocks hold every SM, so the two do not overlap.
constexpr std::int64_t kMaxBlockRows = 16384;
constexpr std::int64_t kChunkBytes = std::int64_t(160) << 20;

/// Launches a kernel of one warp per query row, each warp with a list's worth of shared memory for
/// its compactions (kMaxGemmListEntries entries: 8 KB a warp at most, 32 KB a block) and what else
/// the kernel asks for (Kernel::shared_bytes).
template <class Kernel>
void launch_rows(std::int64_t rows, int capacity, typename Kernel::Params const& p, cudaStream_t stream) {
  if (rows <= 0) return;
  auto const blocks = static_cast<unsigned>((rows + Kernel::kWarps - 1) / Kernel::kWarps);
  std::size_t const bytes = Kernel::shared_bytes(capacity);
  if (bytes > 48 * 1024) {  // above the default limit: opted in (the exact pass at k > 128)
    CUDIST_CUDA_TRY(cudaFuncSetAttribute(run_kernel<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(bytes)));
  }
  run_kernel<Kernel><<<blocks, Kernel::kThreads, bytes, stream>>>(p);
  CUDIST_CHECK_LAUNCH();
}

struct FillKernel {
  static constexpr int kThreads = 256;
  struct Params {
    float* out;
    std::int64_t count;
    float value;
  };
  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    std::int64_t const t = block * kThreads + tid;
    if (t < p.count) p.out[t] = p.value;
  }
};

/// `rows` in bfloat16 as cuBLAS reads them (rows of `depth` elements, 16-byte aligned), and their
/// terms, in `keep`.
struct Bf16Rows {
  __nv_bfloat16 const* copy;
  Bf16RowTerms terms;
};

/// float32 rows, or bfloat16 rows of a depth cuBLAS cannot read in place, are copied; bfloat16
/// rows that are dense, 16-byte aligned and of a depth of 8 k are read as they are (knn's
/// bfloat16 inputs, not widened: plan_select), which saves K4 the copy of its 1.5 GB database.
Bf16Rows bf16_rows(ConstMatrixView rows, int depth, std::vector<Array>& keep, cudaStream_t stream) {
  bool const in_place = rows.dtype == DType::kBFloat16 && rows.cols == depth && rows.stride == depth &&
                        reinterpret_cast<std::uintptr_t>(rows.data) % 16 == 0;
  __nv_bfloat16* copy = nullptr;
  if (!in_place) {
    keep.push_back(device_array(rows.rows, depth, DType::kBFloat16, stream));
    copy = static_cast<__nv_bfloat16*>(keep.back().data());
  }
  std::int64_t const padded = (rows.rows + 3) / 4 * 4;  // both arrays of terms 16-byte aligned
  keep.push_back(device_array(2, padded, DType::kFloat32, stream));
  auto* norms = static_cast<float*>(keep.back().data());
  keep.push_back(device_array(1, rows.rows + 2, DType::kInt32, stream));  // inexact, any, max norm
  auto* flags = static_cast<int*>(keep.back().data());
  CUDIST_CUDA_TRY(cudaMemsetAsync(flags + rows.rows, 0, 2 * sizeof(int), stream));
  Bf16RowTerms const terms{norms, norms + padded, flags, reinterpret_cast<unsigned*>(flags + rows.rows + 1)};
  auto const terms_of = [&](auto const* src) {
    using Kernel = Bf16RowsKernel<std::remove_cv_t<std::remove_pointer_t<decltype(src)>>>;
    launch<Kernel>(rows.rows, Kernel::kRowsPerBlock, {src, rows.rows, rows.cols, rows.stride, depth, copy, terms},
                   stream);
  };
  if (rows.dtype == DType::kBFloat16) {
    terms_of(static_cast<__nv_bfloat16 const*>(rows.data));
  } else {
    terms_of(static_cast<float const*>(rows.data));
  }
  return {in_place ? static_cast<__nv_bfloat16 const*>(rows.data) : copy, terms};
}

}  // namespace

GemmKnnChunks gemm_knn_chunks(std::int64_t m) {
  std::int64_t const row_blocks = (m + kMaxBlockRows - 1) / kMaxBlockRows;
  std::int64_t const block_rows = (m + row_blocks - 1) / row_blocks;
  std::int64_t const chunk =
      std::clamp<std::int64_t>(kChunkBytes / (block_rows * std::int64_t(sizeof(__nv_bfloat16))) / 256 * 256, 256, 16384);
  return {block_rows, chunk};
}

bool gemm_knn_applies(SelectProblem const& p, std::int64_t k, std::int64_t max_on_chip_k) {
  auto const& pw = p.pairwise;
  std::int64_t const candidates = p.n() - (p.rank.exclude_self ? 1 : 0);
  bool const rows = (pw.x.dtype == DType::kFloat32 || pw.x.dtype == DType::kBFloat16) && pw.y.dtype == pw.x.dtype;
  bool const shape = rows &&
                     p.distance_dtype == DType::kFloat32 && pw.op.kind == cudist::detail::OpKind::kDot &&
                     pw.op.weights == nullptr && p.problems() == 1 && pw.x.cols >= 1 && k >= 1 && k <= kMaxGemmK &&
                     k <= candidates && (k > max_on_chip_k || pw.x.cols > kMaxBoundedDepth);
  return shape && !cudist::detail::cuda::simt_selection_forced() && cudist::detail::cuda::cublas_available();
}

namespace {

/// Rows rows[t] of `from` (bfloat16, float32 or int64, row stride ld) into dense rows t
/// of `to`, or, scattering, rows t of `from` into rows rows[t] of `to`: a block a row.
struct MoveRowsKernel {
  static constexpr int kThreads = 128;
  struct Params {
    std::int64_t const* rows;
    std::int64_t count, cols;
    void const* from;
    std::int64_t ld_from;
    void* to;
    std::int64_t ld_to;
    int element_bytes;  // 2, 4 or 8
    bool scatter;
  };
  __device__ void operator()(Params const& p, std::int64_t block, int tid) const {
    if (block >= p.count) return;
    std::int64_t const src = p.scatter ? block : p.rows[block], dst = p.scatter ? p.rows[block] : block;
    for (std::int64_t c = tid; c < p.cols; c += kThreads) {
      if (p.element_bytes == 8) {
        static_cast<std::int64_t*>(p.to)[dst * p.ld_to + c] = static_cast<std::int64_t const*>(p.from)[src * p.ld_from + c];
      } else if (p.element_bytes == 2) {
        static_cast<std::uint16_t*>(p.to)[dst * p.ld_to + c] = static_cast<std::uint16_t const*>(p.from)[src * p.ld_from + c];
      } else {
        static_cast<float*>(p.to)[dst * p.ld_to + c] = static_cast<float const*>(p.from)[src * p.ld_from + c];
      }
    }
  }
};

void move_rows(std::int64_t const* rows, std::int64_t count, std::int64_t cols, void const* from, std::int64_t ld_from,
               void* to, std::int64_t ld_to, int element_bytes, bool scatter, cudaStream_t stream) {
  launch<MoveRowsKernel>(count, 1, {rows, count, cols, from, ld_from, to, ld_to, element_bytes, scatter}, stream);
}

/// The rows listed in `rows` (count of them) of a problem that is not a self-join, by `redo` (the
/// paths below this one) on their own, their answers scattered into place.
void redo_rows(SelectProblem const& p, std::int64_t k, std::int64_t const* rows, std::int64_t count,
               MatrixView distances, MatrixView indices, RedoRows const& redo, cudaStream_t stream) {
  auto const& pw = p.pairwise;
  std::int64_t const d = pw.x.cols;
  Array x = device_array(count, d, pw.x.dtype, stream);
  move_rows(rows, count, d, pw.x.data, pw.x.stride, x.data(), d, static_cast<int>(size_of(pw.x.dtype)), false,
            stream);
  SelectProblem q = p;
  q.pairwise.x = ConstMatrixView(x.data(), count, d, d, pw.x.dtype, Memory::kDevice);
  q.x_offsets = {0, count};
  std::optional<Array> norms;
  if (pw.op.x_norms != nullptr) {  // cosine: the rows' norms, as the op reads them
    norms = device_array(count, 1, DType::kFloat32, stream);
    move_rows(rows, count, 1, pw.op.x_norms, 1, norms->data(), 1, 4, false, stream);
    q.pairwise.op.x_norms = norms->data();
  }
  Array qd = device_array(count, k, DType::kFloat32, stream);
  Array qi = device_array(count, k, DType::kInt64, stream);
  redo(q, qd.view(), qi.view());
  move_rows(rows, count, k, qd.data(), k, distances.data, distances.stride, 4, true, stream);
  move_rows(rows, count, k, qi.data(), k, indices.data, indices.stride, 8, true, stream);
}

}  // namespace

bool gemm_knn(SelectProblem const& p, std::int64_t k, MatrixView distances, MatrixView indices, RedoRows const& redo,
              cudaStream_t stream) {
  auto const& pw = p.pairwise;
  std::int64_t const m = p.m(), n = p.n(), d = pw.x.cols;
  int const depth = static_cast<int>((d + 7) / 8 * 8);
  std::vector<Array> keep;
  Bf16Rows const x = bf16_rows(pw.x, depth, keep, stream);
  bool const self = cudist::detail::same_view(pw.x, pw.y);
  Bf16Rows const y = self ? x : bf16_rows(pw.y, depth, keep, stream);

  GemmKnnState s{};
  s.x = x.terms;
  s.y = y.terms;
  s.n = n;
  ExpansionBound const b = ExpansionBound::for_depth(d);
  s.e = static_cast<double>(d + 2) * 0x1p-22 * (1 + 0x1p-8) + static_cast<double>(d) * 0x1p-44 + 0x1p-8 + b.gamma +
        0x1p-17;
  DotBound::Rank const rank = DotBound::rank_of(p);
  s.cosine = rank.op.kind == DotBound::Op::Finish::kCosineDistance;
  s.exclude_self = p.rank.exclude_self;
  s.zero_diagonal = p.rank.zero_diagonal;
  s.k = static_cast<int>(k);
  s.capacity = 256;
  while (s.capacity < 4 * k) s.capacity *= 2;
  GemmKnnChunks const split = gemm_knn_chunks(m);
  std::int64_t const block_rows = split.block_rows, chunk = split.chunk;
  // The lists of one block of query rows (reused block after block: memory does not grow with m).
  keep.push_back(device_bytes(static_cast<std::size_t>(block_rows) * s.capacity * sizeof(std::uint64_t), stream));
  s.lists = static_cast<std::uint64_t*>(keep.back().data());
  keep.push_back(device_array(2, block_rows + 1, DType::kInt32, stream));
  s.counts = static_cast<int*>(keep.back().data());
  s.taus = reinterpret_cast<float*>(s.counts + block_rows + 1);
  s.redo_count = s.counts + block_rows;
  CUDIST_CUDA_TRY(cudaMemsetAsync(s.redo_count, 0, sizeof(int), stream));
  keep.push_back(device_array(1, m, DType::kInt64, stream));
  s.redo = keep.back().data_as<std::int64_t>();
  Array values = device_array(block_rows, chunk, DType::kBFloat16, stream);
  auto* v = static_cast<__nv_bfloat16*>(values.data());

  // The exact pass sums the kept pairs from the bfloat16 copies where these hold every value of
  // the float32 rows (bfloat16 inputs): the same bits for half the bytes of y's rows read.
  bool const copies_exact = pw.x.dtype == DType::kBFloat16 || (download_one(x.terms.inexact + m, stream) == 0 &&
                                                               download_one(y.terms.inexact + n, stream) == 0);
  // The exact pass of the query rows [s.row0, s.row0 + rows), summing from `sums`' rows.
  auto const exact_pass = [&](auto const& sums, std::int64_t rows) {
    using Kernel = GemmKnnExactKernel<typename std::decay_t<decltype(sums)>::Element>;
    typename Kernel::Params e{};
    e.s = s;
    e.block_rows = rows;
    e.rank = rank;
    e.rows = sums;
    e.spec = p.rank;
    e.distances = static_cast<float*>(distances.data);
    e.ld_distances = distances.stride;
    e.indices = static_cast<std::int64_t*>(indices.data);
    e.ld_indices = indices.stride;
    launch_rows<Kernel>(rows, s.capacity, e, stream);
  };
  auto const copies = SourceSumsOf<__nv_bfloat16>::over({x.copy, y.copy, depth, depth, d});

  // Block by block: fresh lists, every chunk of y through the GEMM and the filter, then the exact
  // pass writes the block's answers and lists the rows that overflowed (redone below).
  for (std::int64_t row0 = 0; row0 < m; row0 += block_rows) {
    std::int64_t const rows = std::min(block_rows, m - row0);
    s.row0 = row0;
    CUDIST_CUDA_TRY(cudaMemsetAsync(s.counts, 0, rows * sizeof(int), stream));
    launch<FillKernel>(rows, FillKernel::kThreads, {s.taus, rows, __builtin_huge_valf()}, stream);
    for (std::int64_t col0 = 0; col0 < n; col0 += chunk) {
      cudist::detail::throw_if_interrupted("knn");
      std::int64_t const cols = std::min(chunk, n - col0);
      cudist::detail::cuda::gemm_bf16_abt(rows, cols, depth, x.copy + row0 * depth, depth, y.copy + col0 * depth, depth,
                                          v, cols, stream);
      if (s.cosine) {
        launch_rows<GemmKnnFilterKernel<true>>(rows, s.capacity, {s, v, row0, rows, col0, cols}, stream);
      } else {
        launch_rows<GemmKnnFilterKernel<false>>(rows, s.capacity, {s, v, row0, rows, col0, cols}, stream);
      }
    }
    if (copies_exact) {
      exact_pass(copies, rows);
    } else {
      exact_pass(SourceSums::of(pw), rows);
    }
  }
  int const redo_count = download_one(s.redo_count, stream);
  if (redo_count == 0) return true;
  // A self-join's diagonal rules use the rows' places in x: its rows are not redone apart.
  if (self || p.rank.zero_diagonal || p.rank.exclude_self) return false;
  redo_rows(p, k, s.redo, redo_count, distances, indices, redo, stream);
  return true;
}

}  // namespace cudist::neighbors::detail::cuda
