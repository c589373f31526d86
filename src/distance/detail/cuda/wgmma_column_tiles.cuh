// MmaColumnTiles' contraction on Hopper's warpgroup MMA (wgmma.cuh), for byte rows (int8 / uint8)
// and float16 rows (the float32 search's best two, in a unit of its own): the same block
// (x's 128-row tile resident, y's 128-column tiles double-buffered, 8 warps) and the same
// accumulator layout per warp, so a kernel written on MmaColumnTiles takes either. What differs:
// the tiles are in the 128-byte-swizzled layout the tensor cores read through descriptors (rows of
// 128 bytes of K, 1024-byte aligned; no padding), and a warpgroup (warps 4 g .. 4 g + 3) issues one
// wgmma per 32 bytes of K for its 64 rows and the half's 64 columns, instead of each warp's
// 20 ldmatrix and 32 mma.sync (the uint8 search's contraction waited on its ldmatrix: ncu run 126).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/detail/host_device.hpp"
#include "distance/detail/cuda/mma_column_tiles.cuh"
#include "distance/detail/cuda/mma_sync.cuh"
#include "distance/detail/cuda/tma.cuh"
#include "distance/detail/cuda/wgmma.cuh"

namespace cudist::detail::cuda {

template <int kThreads>
struct WgmmaColumnTiles : MmaColumnTiles<kThreads> {
  using Base = MmaColumnTiles<kThreads>;
  using Base::kTile;
  using Base::kNTiles;
  static_assert(kThreads == 256 && kTile == 128, "two warpgroups of 64 tile rows");
  static constexpr int kRowBytes = 128;                  // one swizzle atom's width
  static constexpr int kBlockBytes = kTile * kRowBytes;  // all the tile's rows, 128 bytes of K

  /// A tile of rows of data_bytes: 128 bytes of K per block, as many blocks as the steps need.
  static CUDIST_HD std::size_t tile_bytes(int data_bytes) {
    return static_cast<std::size_t>((Base::step_bytes(data_bytes) + kRowBytes - 1) / kRowBytes) * kBlockBytes;
  }

  /// The swizzle is a function of shared addresses: the tiles start on a 1024-byte boundary.
  static constexpr int kAlignment = 1024;
  __device__ static unsigned char* aligned(char* p) {
    auto const at = static_cast<unsigned>(__cvta_generic_to_shared(p));
    return reinterpret_cast<unsigned char*>(p) + ((kAlignment - at % kAlignment) % kAlignment);
  }

  /// Rows row0.. into a tile as Base::load, chunk q of tile row r at its swizzled place.
  template <class Slot>
  __device__ static void load(unsigned char const* base, std::int64_t stride, std::int64_t rows, int data_bytes,
                              std::int64_t row0, unsigned char* dst, Slot slot, int tid) {
    auto const to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    Base::copy_rows(
        base, stride, rows, data_bytes, row0,
        [=](int r, int q) { return wgmma::swizzled(to + (q / 8) * kBlockBytes + slot(r) * kRowBytes + (q % 8) * 16); },
        tid);
  }

  /// The copies (cp.async, waited for) and stores are the generic proxy's; wgmma reads through the
  /// async proxy. Every writer fences before the tile barrier.
  __device__ static void publish_writes() { wgmma::writes_to_async_proxy(); }

  /// This layout is the tensor map's 128-byte swizzle (tensor_map.hpp): one thread copies a tile.
  static constexpr bool kByTma = true;

  /// Rows col0 .. col0 + 127 of the map's rows (of data_bytes) into tile dst, by one thread: one
  /// box a 128-byte block of K, all counted on the mbarrier at shared address `bar`, whose phase
  /// the caller told to expect tile_bytes(data_bytes) more (rows and bytes past the map's end read
  /// as zeros).
  __device__ static void copy_tile(CUtensorMap const& map, int data_bytes, std::int64_t col0, unsigned char* dst,
                                   unsigned bar) {
    int const blocks = static_cast<int>(tile_bytes(data_bytes) / kBlockBytes);
    auto const to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    for (int b = 0; b < blocks; ++b) {
      tma::copy_box(map, b * kRowBytes, static_cast<int>(col0), to + b * kBlockBytes, bar);
    }
  }

  /// f(std::integral_constant<int, steps>{}) for rows of data_bytes (16..256 bytes: 1..8 32-byte
  /// steps), so that a kernel chooses its contraction's straight-line code once.
  template <class F>
  __device__ static void with_steps(int data_bytes, F&& f) {
    switch (Base::step_bytes(data_bytes) / 32) {
      case 1: return f(std::integral_constant<int, 1>{});
      case 2: return f(std::integral_constant<int, 2>{});
      case 3: return f(std::integral_constant<int, 3>{});
      case 4: return f(std::integral_constant<int, 4>{});
      case 5: return f(std::integral_constant<int, 5>{});
      case 6: return f(std::integral_constant<int, 6>{});
      case 7: return f(std::integral_constant<int, 7>{});
      default: return f(std::integral_constant<int, 8>{});
    }
  }

  /// c += the warp's 16 rows x columns 64 half .. 64 half + 63 (Base::contract's layout) for rows
  /// of kSteps 32-byte steps (with_steps), issued as one group by the warpgroup's four warps
  /// together; c is the tensor cores' until wait_accumulated(c). Straight-line wgmmas: in a loop
  /// ptxas fenced them again after each branch (its C7519 note).
  template <int kSteps, class Product>
  __device__ static void issue_accumulate(unsigned char const* xs, unsigned char const* ys, int warp, int half,
                                          int (&c)[kNTiles][4], Product product) {
    std::uint32_t const a = x_operand(xs, warp), b = y_operand(ys, half);
    wgmma::pin(c);
    wgmma::fence();
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
      std::uint32_t const at = ((k / 4) * kBlockBytes + (k % 4) * 32) >> 4;
      step(c, wgmma::descriptor(a + at), wgmma::descriptor(b + at), product);
    }
    wgmma::commit();
  }
  __device__ static void wait_accumulated(int (&c)[kNTiles][4]) {
    wgmma::wait_all();
    wgmma::pin(c);
  }

  /// c = the same products of float16 rows (float32 accumulation; the first step writes c).
  __device__ static void contract(unsigned char const* xs, unsigned char const* ys, int data_bytes, int warp,
                                  int /*lane*/, int half, float (&c)[kNTiles][4], mma::MmaF16) {
    std::uint32_t const a = x_operand(xs, warp), b = y_operand(ys, half);
    wgmma::pin(c);
    switch (Base::step_bytes(data_bytes) / 32) {  // rows of 32..512 bytes: 1..16 steps
      case 1: f16_steps<1>(c, a, b); break;
      case 2: f16_steps<2>(c, a, b); break;
      case 3: f16_steps<3>(c, a, b); break;
      case 4: f16_steps<4>(c, a, b); break;
      case 5: f16_steps<5>(c, a, b); break;
      case 6: f16_steps<6>(c, a, b); break;
      case 7: f16_steps<7>(c, a, b); break;
      case 8: f16_steps<8>(c, a, b); break;
      case 9: f16_steps<9>(c, a, b); break;
      case 10: f16_steps<10>(c, a, b); break;
      case 11: f16_steps<11>(c, a, b); break;
      case 12: f16_steps<12>(c, a, b); break;
      case 13: f16_steps<13>(c, a, b); break;
      case 14: f16_steps<14>(c, a, b); break;
      case 15: f16_steps<15>(c, a, b); break;
      default: f16_steps<16>(c, a, b); break;
    }
    wgmma::commit_and_wait_all();
    wgmma::pin(c);
  }

 private:
  /// The low descriptor words of the warp's warpgroup's 64 rows of x's tile, and of the half's 64
  /// columns of y's tile.
  __device__ static std::uint32_t x_operand(unsigned char const* xs, int warp) {
    return wgmma::descriptor_low(static_cast<unsigned>(__cvta_generic_to_shared(xs)) + (warp / 4) * 64 * kRowBytes);
  }
  __device__ static std::uint32_t y_operand(unsigned char const* ys, int half) {
    return wgmma::descriptor_low(static_cast<unsigned>(__cvta_generic_to_shared(ys)) + half * 64 * kRowBytes);
  }

  /// The same for float16: the first step writes c (its outputs only: an accumulating first step
  /// with scale-d 0 made ptxas serialise every wgmma of the kernel, note C7520).
  template <int kSteps>
  __device__ static void f16_steps(float (&c)[kNTiles][4], std::uint32_t a, std::uint32_t b) {
    wgmma::fence();
    wgmma::mma_f16_m64n64<true>(c, wgmma::descriptor(a), wgmma::descriptor(b));
#pragma unroll
    for (int k = 1; k < kSteps; ++k) {
      std::uint32_t const at = ((k / 4) * kBlockBytes + (k % 4) * 32) >> 4;
      wgmma::mma_f16_m64n64<false>(c, wgmma::descriptor(a + at), wgmma::descriptor(b + at));
    }
  }

  /// One 32-byte step of K by the product's wgmma: bytes, or bits (AND + popcount).
  template <bool kSigned>
  __device__ static void step(int (&c)[kNTiles][4], std::uint64_t a, std::uint64_t b, mma::MmaBytes<kSigned>) {
    wgmma::mma_bytes_m64n64<kSigned>(c, a, b);
  }
  __device__ static void step(int (&c)[kNTiles][4], std::uint64_t a, std::uint64_t b, mma::MmaBitsAnd) {
    wgmma::mma_bits_and_m64n64(c, a, b);
  }
};

}  // namespace cudist::detail::cuda
