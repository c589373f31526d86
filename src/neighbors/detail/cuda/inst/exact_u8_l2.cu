// The int8 tensor-core search of byte-row squared L2 (exact_u8_l2_kernel.cuh; uint8 rows, and int8
// rows with the signed MMA), and the single-bit one of bit rows' Hamming distance, for its two
// consumers: the lanes' best two (k <= 2, match) and the row buffers (3 <= k). The mma.sync
// contraction is built here; on Hopper, where the build holds it, the wgmma contraction runs
// instead (exact_u8_l2_wgmma.hpp).
#include "neighbors/detail/cuda/exact_u8_l2.hpp"

#include "core/cuda/device_features.hpp"
#include "distance/detail/cuda/pairwise_launch.cuh"
#include "neighbors/detail/cuda/exact_u8_l2_kernel.cuh"
#include "neighbors/detail/cuda/exact_u8_l2_launch.cuh"
#include "neighbors/detail/cuda/exact_u8_l2_wgmma.hpp"

namespace cudist::neighbors::detail::cuda {
namespace {

constexpr int kSm80 = 80;
using Kernels = ByteSearchKernels<ExactU8L2Kernel, ExactS8L2Kernel, ExactBitsHammingKernel, kSm80>;

bool hamming(SelectProblem const& p) { return p.pairwise.op.kind == cudist::detail::OpKind::kXorPopcount; }

RowProduct row_product(SelectProblem const& p) {
  if (hamming(p)) return RowProduct::kBits;
  return p.pairwise.op.signed_bytes ? RowProduct::kSignedBytes : RowProduct::kUnsignedBytes;
}

/// The rows' bytes as the kernel reads them: 16-byte loads of whole rows.
bool rows_fit(ConstMatrixView words) {
  using cudist::detail::cuda::rows_allow_vectors;
  return rows_allow_vectors(words.data, words.stride, 16, sizeof(std::uint32_t));
}

}  // namespace

std::size_t exact_u8_l2_smem(SelectProblem const& p, std::int64_t k) {
  int const b = static_cast<int>(p.pairwise.x.cols * 4);
  RowProduct const product = row_product(p);
  return exact_u8_l2_wgmma_runs(k, b, product) ? exact_u8_l2_wgmma_smem(k, b, product) : Kernels::smem(k, b, product);
}

bool exact_u8_l2_applies(SelectProblem const& p, std::int64_t k, bool observer) {
  auto const& pw = p.pairwise;
  std::int64_t const bytes = pw.x.cols * 4;
  bool const shape = pw.x.dtype == DType::kInt32 && pw.y.dtype == DType::kInt32 &&
                     (pw.op.kind == cudist::detail::OpKind::kSqDiffSum || hamming(p)) && pw.op.weights == nullptr &&
                     p.distance_dtype != DType::kFloat64 && bytes % 16 == 0 && bytes >= 16 && bytes <= 256 &&
                     rows_fit(pw.x) && rows_fit(pw.y) && p.n() > 0 && k >= 1 && !observer;
  if (!shape || cudist::detail::cuda::simt_selection_forced()) return false;
  int const b = static_cast<int>(bytes);
  RowProduct const product = row_product(p);
  return exact_u8_l2_wgmma_runs(k, b, product) || Kernels::runs_here(k, b, product);
}

void run_exact_u8_l2(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream) {
  RowProduct const product = row_product(*f.problem);
  int const bytes = static_cast<int>(f.problem->pairwise.x.cols * 4);
  if (exact_u8_l2_wgmma_runs(a.k, bytes, product) && run_exact_u8_l2_wgmma(f, a, product, stream)) return;
  Kernels::run(f, a, product, stream);  // where wgmma's tensor maps cannot be made, too
}

}  // namespace cudist::neighbors::detail::cuda
