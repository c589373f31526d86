// int32 instantiations of the semiring products. Min-plus and max-plus without a witness run on
// DPX (__viaddmin_s32 / __viaddmax_s32) after an encode pass; when the pass finds an entry out of
// the exact range, the saturating ring computes the product instead, chosen on the device.
#include "core/cuda/device_features.hpp"
#include "semiring/detail/cuda/dpx_encode.cuh"
#include "semiring/detail/cuda/product_launch.cuh"

namespace cudist::detail::cuda {
namespace {

template <int kSign>
void dpx_product(SemiringProblem const& p, cudaStream_t stream) {
  using Encoding = DpxEncoding<std::int32_t, kSign>;
  using Op = semiring::ProductOp<DpxPlusInt32<kSign>, std::int32_t>;
  std::int64_t const m = p.a.rows, d = p.a.cols, n = p.b.cols;
  Array flag = zeroed_flag(stream);
  Array a_enc = device_scratch(m, d, DType::kInt32, stream);  // (m, d)
  Array b_enc = device_scratch(d, n, DType::kInt32, stream);  // (d, n)
  int* const inexact = flag.data_as<int>();
  encode<SameLayout, Encoding>(static_cast<std::int32_t const*>(p.a.data), p.a.stride, m, d,
                               a_enc.data_as<std::int32_t>(), inexact, stream);
  encode<SameLayout, Encoding>(static_cast<std::int32_t const*>(p.b.data), p.b.stride, d, n,
                               b_enc.data_as<std::int32_t>(), inexact, stream);
  ProductOperands<std::int32_t> const in{a_enc.data_as<std::int32_t>(), d,
                                         b_enc.data_as<std::int32_t>(), n, m, n, d};
  launch_product<Op, std::int32_t>(in, semiring::product_output<std::int32_t>(p), Op{},
                                   {inexact, 0}, stream);
  launch_ring_product<std::int32_t>(p, {inexact, 1}, stream);
}

}  // namespace

void semiring_int32(SemiringProblem const& p, cudaStream_t stream) {
  // Before sm_90 DPX is emulated in several instructions each (unmeasured): the ring, plain
  // arithmetic on every GPU, computes the product there and under CUDIST_FORCE_PORTABLE=1.
  if (p.witness.data == nullptr && device_has_dpx()) {
    if (p.semiring == Semiring::kMinPlus) return dpx_product<+1>(p, stream);
    if (p.semiring == Semiring::kMaxPlus) return dpx_product<-1>(p, stream);
  }
  launch_ring_product<std::int32_t>(p, {}, stream);
}

}  // namespace cudist::detail::cuda
