// SpMV / SpMM over a device set: each shard plans and multiplies its block of A's rows. A block
// of a CSR matrix is a CSR matrix: its offsets are the block's offsets minus the first, its
// indices and values a contiguous run of A's.
#include "sparse/detail/split_spmv.hpp"

#include <cstdint>
#include <optional>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/split.hpp"

namespace cudist::sparse::detail {
namespace {

using cudist::detail::RowRange;

/// Entry e of a host int32 / int64 array.
std::int64_t index_at(Array const& a, std::int64_t e) {
  return a.dtype() == DType::kInt32 ? a.data_as<std::int32_t>()[e] : a.data_as<std::int64_t>()[e];
}

/// Rows `r` of A as a CSR matrix in the memory a shard reads, and the arrays behind it: rebased
/// offsets, and A's indices and values (their device copies when A is in device memory, which may
/// belong to another GPU).
struct CsrPart {
  CsrView view;
  std::vector<Array> keep;
};

CsrPart rows_of(Resources const& shard, CsrView const& a, Memory memory, Array const& offsets,
                RowRange r) {
  std::int64_t const first = index_at(offsets, r.begin);
  std::int64_t const nnz = index_at(offsets, r.end) - first;
  CsrPart part;
  Array rebased = Array::allocate(1, r.size() + 1, a.index_dtype, Device::cpu());
  for (std::int64_t i = 0; i <= r.size(); ++i) {
    std::int64_t const v = index_at(offsets, r.begin + i) - first;
    if (a.index_dtype == DType::kInt32) {
      rebased.data_as<std::int32_t>()[i] = static_cast<std::int32_t>(v);
    } else {
      rebased.data_as<std::int64_t>()[i] = v;
    }
  }
  std::size_t const index_bytes = size_of(a.index_dtype), value_bytes = size_of(a.value_dtype);
  ConstMatrixView indices{static_cast<char const*>(a.col_indices) + first * index_bytes, 1, nnz,
                          nnz, a.index_dtype, memory};
  ConstMatrixView values{static_cast<char const*>(a.values) + first * value_bytes, 1, nnz, nnz,
                         a.value_dtype, memory};
  if (memory == Memory::kDevice && nnz > 0) {
    part.keep.push_back(Array::copy_of(indices, shard.device, shard.stream));
    part.keep.push_back(Array::copy_of(values, shard.device, shard.stream));
    indices = part.keep[0].view();
    values = part.keep[1].view();
  }
  Memory const in = nnz > 0 ? memory : Memory::kHost;
  if (in == Memory::kDevice) {
    part.keep.push_back(Array::copy_of(rebased.view(), shard.device, shard.stream));
  } else {
    part.keep.push_back(std::move(rebased));
  }
  part.view = {r.size(), a.cols, nnz, part.keep.back().data(), indices.data, values.data,
               a.index_dtype, a.value_dtype, in};
  return part;
}

/// Rows `r` of y: a slice of a column vector, of the columns of a one-row vector, or the rows of
/// a row-major matrix.
MatrixView rows_of(MatrixView y, RowRange r, bool vector) {
  if (!vector || y.cols == 1) return cudist::detail::row_slice(y, r);
  auto* base = static_cast<char*>(y.data) + r.begin * size_of(y.dtype);
  return {r.size() > 0 ? base : y.data, 1, r.size(), r.size(), y.dtype, y.memory};
}

}  // namespace

void split_product(char const* who, std::vector<Resources> const& shards, SplitProduct what,
                   CsrView const& a, ConstMatrixView x, MatrixView y, double alpha, double beta) {
  bool const vector = what != SplitProduct::kSpmm;
  std::int64_t const y_rows = vector ? y.rows * y.cols : y.rows;
  CUDIST_EXPECTS(a.index_dtype == DType::kInt32 || a.index_dtype == DType::kInt64,
                 who << ": A's indices are " << dtype_name(a.index_dtype) << "; int32 or int64");
  CUDIST_EXPECTS(a.rows >= 0 && a.nnz >= 0, who << ": A has a negative shape");
  CUDIST_EXPECTS(!vector || y.rows == 1 || y.cols == 1,
                 who << ": y must be a vector (one row or one column) but is (" << y.rows << ", "
                     << y.cols << ")");
  CUDIST_EXPECTS(y_rows == a.rows, who << ": y has " << y_rows << (vector ? " elements" : " rows")
                                       << " but A has " << a.rows << " rows");
  Memory const memory = cudist::detail::resolve_memory(a.row_offsets, a.memory);
  // The offsets on the host: where each shard's block starts and ends.
  Array const offsets = Array::copy_of(
      ConstMatrixView{a.row_offsets, 1, a.rows + 1, a.rows + 1, a.index_dtype, memory}, Device::cpu(),
      shards[0].stream);
  CUDIST_EXPECTS(index_at(offsets, 0) == 0 && index_at(offsets, a.rows) == a.nnz,
                 who << ": A's row offsets run from " << index_at(offsets, 0) << " to "
                     << index_at(offsets, a.rows) << " but must run from 0 to nnz = " << a.nnz);
  std::vector<RowRange> const parts = cudist::detail::split_rows(a.rows, shards.size());
  MatrixView const target = cudist::detail::resolved(y);
  bool const reads_y = what == SplitProduct::kSpmvMinPlus || beta != 0;
  cudist::detail::run_parts(who, shards, [&](std::size_t s) {
    if (parts[s].size() == 0) return;
    Resources const& shard = shards[s];
    CsrPart const part = rows_of(shard, a, memory, offsets, parts[s]);
    std::optional<Array> x_copy, own;
    ConstMatrixView xs = cudist::detail::readable_on(shard, x, x_copy);
    if (shard.device.is_cuda() && cudist::detail::resolved(xs).memory == Memory::kHost) {
      x_copy = Array::copy_of(xs, shard.device, shard.stream);  // the plan computes on the device
      xs = x_copy->view();
    }
    MatrixView const rows = rows_of(target, parts[s], vector);
    MatrixView out = rows;
    if (shard.device.is_cuda() || target.memory != Memory::kHost) {  // y may be on another GPU
      own = reads_y ? Array::copy_of(rows, shard.device, shard.stream)
                    : Array::allocate(rows.rows, rows.cols, rows.dtype, shard.device, shard.stream);
      out = own->view();
    }
    SpmvPlan const plan = make_spmv_plan(shard, part.view);
    switch (what) {
      case SplitProduct::kSpmv: spmv(shard, plan, xs, out, alpha, beta); break;
      case SplitProduct::kSpmm: spmm(shard, plan, xs, out, alpha, beta); break;
      case SplitProduct::kSpmvMinPlus: spmv_min_plus(shard, plan, xs, out); break;
    }
    if (own) {
      copy(own->view(), rows, shard.stream);
      if (shard.device.is_cuda()) cudist::detail::cuda_stream_synchronize(shard.stream);  // `own` outlives the copy
    }
  });
}

}  // namespace cudist::sparse::detail
