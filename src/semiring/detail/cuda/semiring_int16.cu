// int16 instantiations of the semiring products. Min-plus and max-plus without a witness run on
// packed DPX (__viaddmin_s16x2 / __viaddmax_s16x2: two outputs per instruction) after an encode
// pass that duplicates A's entries into both lanes and pairs B's columns; when the pass finds an
// entry out of the exact range, the saturating ring (int32 arithmetic) computes the product
// instead, chosen on the device.
#include "core/cuda/device_features.hpp"
#include "semiring/detail/cuda/dpx_encode.cuh"
#include "semiring/detail/cuda/product_launch.cuh"

namespace cudist::detail::cuda {
namespace {

template <int kSign>
void packed_dpx_product(SemiringProblem const& p, cudaStream_t stream) {
  using Encoding = DpxEncoding<std::int16_t, kSign>;
  using Op = semiring::ProductOp<DpxPlusInt16x2<kSign>, std::uint32_t>;
  using Epilogue = PackedPairEpilogue<Op>;
  std::int64_t const m = p.a.rows, d = p.a.cols, n = p.b.cols;
  std::int64_t const pairs = PairedLanes::words(n);
  Array flag = zeroed_flag(stream);
  Array a_enc = device_scratch(m, d, DType::kInt32, stream);      // (m, d) duplicated lanes
  Array b_enc = device_scratch(d, pairs, DType::kInt32, stream);  // (d, ceil(n / 2)) paired lanes
  int* const inexact = flag.data_as<int>();
  encode<DuplicatedLanes, Encoding>(static_cast<std::int16_t const*>(p.a.data), p.a.stride, m, d,
                                    a_enc.data_as<std::uint32_t>(), inexact, stream);
  encode<PairedLanes, Encoding>(static_cast<std::int16_t const*>(p.b.data), p.b.stride, d, n,
                                b_enc.data_as<std::uint32_t>(), inexact, stream);
  ProductOperands<std::uint32_t> const in{a_enc.data_as<std::uint32_t>(), d,
                                          b_enc.data_as<std::uint32_t>(), pairs, m, pairs, d};
  typename Epilogue::Params const out{static_cast<std::int16_t*>(p.c.data), p.c.stride, n,
                                      p.accumulate};
  launch_product<Op, std::uint32_t, Epilogue>(in, out, Op{}, {inexact, 0}, stream);
  launch_ring_product<std::int16_t>(p, {inexact, 1}, stream);
}

}  // namespace

void semiring_int16(SemiringProblem const& p, cudaStream_t stream) {
  // Before sm_90 DPX is emulated in several instructions each (unmeasured): the ring, plain
  // arithmetic on every GPU, computes the product there and under CUDIST_FORCE_PORTABLE=1.
  if (p.witness.data == nullptr && device_has_dpx()) {
    if (p.semiring == Semiring::kMinPlus) return packed_dpx_product<+1>(p, stream);
    if (p.semiring == Semiring::kMaxPlus) return packed_dpx_product<-1>(p, stream);
  }
  launch_ring_product<std::int16_t>(p, {}, stream);
}

}  // namespace cudist::detail::cuda
