// Prototype for issue 11's fused epilogue (docs/tuning.md, "the filter in a CUTLASS GEMM's
// epilogue"): does a CUTLASS Hopper GEMM (TMA, wgmma, warp-specialised) that tests each product
// against its row's threshold in the epilogue, and writes only the pairs that pass, run at the
// GEMM's own speed? K4's GEMM path today writes the whole bfloat16 product (20 GB for 10000 x 1M)
// and its filter reads it back: ~13 of its 41 ms. K3 (int8 rows, d = 128) has no product at all
// today: its mma.sync kernel tests pairs in registers, bound by its offers (54 ms, floor 4.6).
//
// Measures, on one GPU, over the columns of y in chunks (as gemm_knn.cu does):
//   cublas      cuBLAS's GEMM with the product written (bfloat16, or int32 for int8 rows)
//   cutlass     the CUTLASS kernel with the product written (is its mainloop cuBLAS's?)
//   fused       the same mainloop, no product: each value >= tau[row] appended to its row's list
// and, to find where the fused kernel's time goes, the same with an epilogue that does nothing
// and one that only tests each value against one threshold (no coordinates, no lists),
// and checks the fused lists of the first chunk against cuBLAS's product in float32 (bfloat16:
// every listed value passes and matches within summation order, each row's count matches up to
// the values that close to tau) or int32 (int8: exactly).
//
// Build (CUTLASS's headers from PyPI's nvidia-cutlass wheel; scripts/cutlass_headers.sh):
//   nvcc -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a \
//        -I$(scripts/cutlass_headers.sh) bench/prototypes/fused_filter_gemm.cu -lcublas -o fused_filter_gemm
//   (-DNDEBUG: CUTLASS's device asserts are calls otherwise, and ptxas serialises every wgmma
//   across them, warning C7510: run 80 timed the storing kernel 16% behind cuBLAS that way)
//   ./fused_filter_gemm bf16 [m n d chunk tau]   (default K4: 10000 1000000 768 8192 34)
//   ./fused_filter_gemm int8 [m n d chunk tau]   (default one block of K3's rows: 16384 160000 128 8192 230000)
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>

#define CHECK_CUDA(call)                                                                      \
  do {                                                                                        \
    cudaError_t const e = (call);                                                             \
    if (e != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));         \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)
#define CHECK_CUBLAS(call)                                                                    \
  do {                                                                                        \
    cublasStatus_t const s = (call);                                                          \
    if (s != CUBLAS_STATUS_SUCCESS) {                                                         \
      std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, static_cast<int>(s)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

using namespace cute;

// ---- The epilogue node: values >= tau[row] appended to their row's list ----

/// A list entry: the column in the high word, the value's bits in the low one.
struct Lists {
  float const* tau;        // (m) threshold of each row
  int* counts;             // (m) entries appended (may exceed capacity: the row overflowed)
  std::uint64_t* entries;  // (m, capacity)
  int capacity;
  std::int64_t col0;       // the chunk's first column of y
};

/// What the node does per value: the filter with each value's coordinates and its row's threshold
/// looked up, or (to find what that costs) nothing, or the test against one threshold with no
/// coordinates; or the filter with the rows' thresholds and the columns' terms from CUTLASS's
/// broadcast nodes (the value passes where v - term[col] >= tau[row]), coordinates only for
/// the fragments where a value passes; or the same with the rows' thresholds alone (inner
/// product's test with the largest column term folded into each row's threshold); or that test
/// deferred: per value a bit of the subtile's mask, and one branch per subtile (in reduce(),
/// which sees the subtile's values) to the appends.
/// kRegisters: the deferred test with the thread's two rows' thresholds (rows r and r + 8 of a
/// wgmma accumulator) loaded once per tile, in begin(), instead of from a broadcast node.
enum class Work { kFilter, kNothing, kTestOnly, kBroadcast, kRowThreshold, kDeferred, kRegisters };

/// The host steps CUTLASS asks of an epilogue or a visitor node whose arguments are its
/// parameters as they are, with no workspace and nothing it cannot run.
template <class P>
struct PassThroughArguments {
  using Arguments = P;
  using Params = P;

  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const&, Arguments const& args, void*) {
    return args;
  }
  template <class ProblemShape>
  static bool can_implement(ProblemShape const&, Arguments const&) { return true; }
  template <class ProblemShape>
  static std::size_t get_workspace_size(ProblemShape const&, Arguments const&) { return 0; }
  template <class ProblemShape>
  static cutlass::Status initialize_workspace(ProblemShape const&, Arguments const&, void*, cudaStream_t,
                                              cutlass::CudaHostAdapter* = nullptr) {
    return cutlass::Status::kSuccess;
  }
};

/// An EVT node (the shape of CUTLASS's Sm90ScalarReduction): no inputs but the accumulators'
/// fetch, no output (the kernel's D is void); per value, its (row, column) from the thread's
/// coordinate tensor, and an append where it passes.
template <Work kWork>
struct ThresholdAppend : PassThroughArguments<Lists> {
  // With D void, CUTLASS sizes its (unallocated) D layouts from the fusion's aux element.
  using ElementAux = cutlass::bfloat16_t;
  struct SharedStorage {};

  CUTLASS_DEVICE bool is_producer_load_needed() const { return false; }
  CUTLASS_DEVICE bool is_C_load_needed() const { return false; }

  CUTLASS_HOST_DEVICE ThresholdAppend() {}
  CUTLASS_HOST_DEVICE ThresholdAppend(Params const& params, SharedStorage const&) : params(params) {}
  Params params;

  template <class... Args>
  CUTLASS_DEVICE auto get_producer_load_callbacks(cutlass::epilogue::fusion::ProducerLoadArgs<Args...> const&) {
    return cutlass::epilogue::fusion::EmptyProducerLoadCallbacks{};
  }

  template <class CTensor, class ThrResidue>
  struct ConsumerStoreCallbacks : cutlass::epilogue::fusion::EmptyConsumerStoreCallbacks {
    CUTLASS_DEVICE ConsumerStoreCallbacks(CTensor tCcD, ThrResidue residue, int m, int n, Params const& params)
        : tCcD(tCcD), residue(residue), m(m), n(n), params(params) {}
    CTensor tCcD;        // (CPY, CPY_M, CPY_N, EPI_M, EPI_N): coordinates from the thread's first value
    ThrResidue residue;  // (m, n) less the thread's first value's coordinates
    int m, n;
    Params params;

    float tau_first = 0, tau_second = 0;  // kRegisters: the thread's rows r and r + 8

    CUTLASS_DEVICE void begin() {
      if constexpr (kWork == Work::kRegisters) {
        int const row = m - get<0>(residue) + get<0>(tCcD(0));
        tau_first = row < m ? __ldg(params.tau + row) : __int_as_float(0x7f800000);
        tau_second = row + 8 < m ? __ldg(params.tau + row + 8) : __int_as_float(0x7f800000);
      }
    }

    template <typename ElementAccumulator, typename ElementInput, int FragmentSize>
    CUTLASS_DEVICE auto visit(cutlass::Array<ElementAccumulator, FragmentSize> const&, int epi_v, int epi_m,
                              int epi_n, cutlass::Array<ElementInput, FragmentSize> const& frg_input) {
      if constexpr (kWork == Work::kNothing) return frg_input;
      if constexpr (kWork == Work::kRegisters) {
        Tensor coords = tCcD(_, _, _, epi_m, epi_n);
        CUTLASS_PRAGMA_UNROLL
        for (int i = 0; i < FragmentSize; ++i) {
          // A static offset from the thread's first row: 0 or 8 in a wgmma accumulator; any other
          // (another tiling) reads its threshold.
          int const offset = get<0>(coords(epi_v * FragmentSize + i)) - get<0>(tCcD(0));
          int const row = m - get<0>(residue) + get<0>(tCcD(0)) + offset;
          float const tau = offset == 0 ? tau_first : offset == 8 ? tau_second : __ldg(params.tau + min(row, m - 1));
          passed |= static_cast<std::uint32_t>(static_cast<float>(frg_input[i]) >= tau) << (epi_v * FragmentSize + i);
        }
        return frg_input;
      }
      if constexpr (kWork == Work::kTestOnly) {
        bool any = false;
        CUTLASS_PRAGMA_UNROLL
        for (int i = 0; i < FragmentSize; ++i) any |= static_cast<float>(frg_input[i]) >= params.tau[0];
        if (any) atomicAdd(params.counts, 1);
        return frg_input;
      }
      Tensor coords = tCcD(_, _, _, epi_m, epi_n);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < FragmentSize; ++i) {
        auto const c = coords(epi_v * FragmentSize + i);
        if (!elem_less(c, residue)) continue;  // past the problem's edge
        int const row = m - get<0>(residue) + get<0>(c);
        int const col = n - get<1>(residue) + get<1>(c);
        float const v = static_cast<float>(frg_input[i]);
        if (v >= __ldg(params.tau + row)) {
          int const slot = atomicAdd(params.counts + row, 1);
          if (slot < params.capacity) {
            params.entries[static_cast<std::int64_t>(row) * params.capacity + slot] =
                (static_cast<std::uint64_t>(params.col0 + col) << 32) | __float_as_uint(v);
          }
        }
      }
      return frg_input;
    }

    /// kBroadcast: the rows' thresholds and the columns' terms arrive with the values.
    template <typename ElementAccumulator, typename ElementInput, int FragmentSize>
    CUTLASS_DEVICE auto visit(cutlass::Array<ElementAccumulator, FragmentSize> const& acc, int epi_v, int epi_m,
                              int epi_n, cutlass::Array<ElementInput, FragmentSize> const& frg_input,
                              cutlass::Array<float, FragmentSize> const& frg_tau,
                              cutlass::Array<float, FragmentSize> const& frg_term) {
      bool pass[FragmentSize], any = false;
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < FragmentSize; ++i) {
        pass[i] = static_cast<float>(frg_input[i]) - frg_term[i] >= frg_tau[i];
        any |= pass[i];
      }
      if (!any) return frg_input;
      return append_passed(epi_v, epi_m, epi_n, frg_input, pass);
    }

    /// kRowThreshold, kDeferred: the rows' thresholds arrive with the values.
    template <typename ElementAccumulator, typename ElementInput, int FragmentSize>
    CUTLASS_DEVICE auto visit(cutlass::Array<ElementAccumulator, FragmentSize> const& acc, int epi_v, int epi_m,
                              int epi_n, cutlass::Array<ElementInput, FragmentSize> const& frg_input,
                              cutlass::Array<float, FragmentSize> const& frg_tau) {
      if constexpr (kWork == Work::kDeferred) {
        CUTLASS_PRAGMA_UNROLL
        for (int i = 0; i < FragmentSize; ++i) {
          passed |= static_cast<std::uint32_t>(static_cast<float>(frg_input[i]) >= frg_tau[i]) << (epi_v * FragmentSize + i);
        }
        return frg_input;
      }
      bool pass[FragmentSize], any = false;
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < FragmentSize; ++i) {
        pass[i] = static_cast<float>(frg_input[i]) >= frg_tau[i];
        any |= pass[i];
      }
      if (!any) return frg_input;
      return append_passed(epi_v, epi_m, epi_n, frg_input, pass);
    }

    std::uint32_t passed = 0;  // kDeferred: bit t, value t of the subtile passed

    /// kDeferred: the subtile's appends, where any of its values passed.
    template <class STensor, class SyncFn, class VTensor>
    CUTLASS_DEVICE void reduce(STensor&&, SyncFn const&, int epi_m, int epi_n, bool, VTensor visit_results) {
      if constexpr (kWork == Work::kDeferred || kWork == Work::kRegisters) {
        if (passed == 0) return;
        Tensor coords = tCcD(_, _, _, epi_m, epi_n);
        constexpr int kFragment = std::remove_reference_t<decltype(visit_results(0))>::kElements;
        CUTLASS_PRAGMA_UNROLL
        for (int t = 0; t < size(visit_results) * kFragment; ++t) {
          auto const c = coords(t);
          if (((passed >> t) & 1u) == 0 || !elem_less(c, residue)) continue;
          int const row = m - get<0>(residue) + get<0>(c);
          int const col = n - get<1>(residue) + get<1>(c);
          float const v = static_cast<float>(visit_results(t / kFragment)[t % kFragment]);
          int const slot = atomicAdd(params.counts + row, 1);
          if (slot < params.capacity) {
            params.entries[static_cast<std::int64_t>(row) * params.capacity + slot] =
                (static_cast<std::uint64_t>(params.col0 + col) << 32) | __float_as_uint(v);
          }
        }
        passed = 0;
      }
    }

    /// The rare path: the passed values' coordinates, and their appends.
    template <typename ElementInput, int FragmentSize>
    CUTLASS_DEVICE auto append_passed(int epi_v, int epi_m, int epi_n,
                                      cutlass::Array<ElementInput, FragmentSize> const& frg_input,
                                      bool const (&pass)[FragmentSize]) {
      Tensor coords = tCcD(_, _, _, epi_m, epi_n);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < FragmentSize; ++i) {
        auto const c = coords(epi_v * FragmentSize + i);
        if (!pass[i] || !elem_less(c, residue)) continue;  // past the edge: broadcasts read 0 there
        int const row = m - get<0>(residue) + get<0>(c);
        int const col = n - get<1>(residue) + get<1>(c);
        int const slot = atomicAdd(params.counts + row, 1);
        if (slot < params.capacity) {
          params.entries[static_cast<std::int64_t>(row) * params.capacity + slot] =
              (static_cast<std::uint64_t>(params.col0 + col) << 32) | __float_as_uint(static_cast<float>(frg_input[i]));
        }
      }
      return frg_input;
    }
  };

  template <bool ReferenceSrc, class... Args>
  CUTLASS_DEVICE auto get_consumer_store_callbacks(cutlass::epilogue::fusion::ConsumerStoreArgs<Args...> const& args) {
    auto [m, n, k, l] = args.problem_shape_mnkl;
    return ConsumerStoreCallbacks<decltype(args.tCcD), decltype(args.residue_tCcD)>(
        args.tCcD, args.residue_tCcD, static_cast<int>(m), static_cast<int>(n), params);
  }
};

// ---- Our own epilogue: no visitor tree, no shared memory, no barriers ----

/// Each of the thread's accumulators' (row, column) in the whole product: the identity tensor's
/// tile, partitioned as the MMA partitions the accumulators.
template <class TileShapeMNK, class TileCoordMNKL, class TiledMma>
CUTLASS_DEVICE auto accumulator_coords(int m, int n, TileShapeMNK tile, TileCoordMNKL tile_coord, TiledMma tiled_mma,
                                       int thread_idx) {
  Tensor tile_coords = local_tile(make_identity_tensor(make_shape(m, n)), take<0, 2>(tile),
                                  make_coord(get<0>(tile_coord), get<1>(tile_coord)));
  return tiled_mma.get_thread_slice(thread_idx).partition_C(tile_coords);
}

/// Bit i % 32 of passed[i / 32]: accumulator i is at or above its row's tau.
template <int kWords, class AccTensor, class Coords>
CUTLASS_DEVICE void threshold_mask(AccTensor const& acc, Coords const& coords, float const* taus, int m,
                                   std::uint32_t (&passed)[kWords]) {
  CUTLASS_PRAGMA_UNROLL
  for (int w = 0; w < kWords; ++w) passed[w] = 0;
  CUTLASS_PRAGMA_UNROLL
  for (int i = 0; i < kWords * 32; ++i) {
    // A wgmma accumulator's rows are the thread's first row + a static offset: the same few
    // addresses, loaded once each.
    int const row = min(static_cast<int>(get<0>(coords(i))), m - 1);
    float const tau = __ldg(taus + row);
    bool pass;
    if constexpr (std::is_integral_v<std::remove_cv_t<std::remove_reference_t<decltype(acc(0))>>>) {
      // int32 products against the least integer >= tau: no float copy of each accumulator
      // (ptxas kept both, 928 bytes of spills, in the first version)
      pass = acc(i) >= static_cast<int>(fminf(ceilf(tau), 0x1p31f - 128.0f));
    } else {
      pass = acc(i) >= tau;
    }
    passed[i / 32] |= static_cast<std::uint32_t>(pass) << (i % 32);
  }
}

/// What CUTLASS's Sm90TmaWarpSpecializedAdapter asks of an operator-style epilogue taking
/// arguments P: the types the kernel names (no C or D is ever read or written), trivial host
/// steps, and operator(), which gives Derived::take each consumer thread's accumulators of the
/// tile with their coordinates and the mask of those at or above their rows' taus (P::tau).
template <class Derived, class P>
struct OperatorEpilogue : PassThroughArguments<P> {
  using typename PassThroughArguments<P>::Params;
  using ElementC = float;
  using ElementD = float;
  using StrideC = cute::Stride<std::int64_t, cute::Int<1>, std::int64_t>;
  using StrideD = StrideC;
  using ThreadEpilogueOp = void;  // named by GemmUniversalAdapter, used by none of its calls here
  struct SharedStorage {};

  CUTLASS_HOST_DEVICE explicit OperatorEpilogue(Params const& p) : params(p) {}
  Params params;

  template <class ProblemShapeMNKL, class TileShapeMNK, class TileCoordMNKL, class AccEngine, class AccLayout,
            class TiledMma, class Residue>
  CUTLASS_DEVICE void operator()(ProblemShapeMNKL problem, TileShapeMNK tile, TileCoordMNKL tile_coord,
                                 Tensor<AccEngine, AccLayout> const& acc, TiledMma tiled_mma, Residue, int thread_idx,
                                 char*) {
    int const m = get<0>(problem), n = get<1>(problem);
    auto const coords = accumulator_coords(m, n, tile, tile_coord, tiled_mma, thread_idx);
    constexpr int kWords = decltype(size(acc))::value / 32;
    static_assert(decltype(size(acc))::value == kWords * 32, "whole mask words");
    std::uint32_t passed[kWords];
    threshold_mask(acc, coords, params.tau, m, passed);
    static_cast<Derived const*>(this)->take(acc, coords, passed, m, n, tile_coord, thread_idx);
  }
};

/// An operator-style epilogue: each consumer thread takes its accumulators of the tile as they
/// are, one compare per value against its row's threshold into a mask, and appends only where
/// the mask has a bit. The TMA epilogue's subtiles, fences and named barriers (16% of the
/// visitor kernels' stall samples, ncu run 86) do not exist here: no thread waits on another.
struct ThresholdEpilogue : OperatorEpilogue<ThresholdEpilogue, Lists> {
  using OperatorEpilogue<ThresholdEpilogue, Lists>::OperatorEpilogue;

  template <class AccTensor, class Coords, int kWords, class TileCoordMNKL>
  CUTLASS_DEVICE void take(AccTensor const& acc, Coords const& coords, std::uint32_t const (&passed)[kWords], int m,
                           int n, TileCoordMNKL, int) const {
    CUTLASS_PRAGMA_UNROLL
    for (int w = 0; w < kWords; ++w) {
      if (passed[w] == 0) continue;
      CUTLASS_PRAGMA_UNROLL
      for (int t = 0; t < 32; ++t) {
        int const i = w * 32 + t;
        int const row = get<0>(coords(i)), col = get<1>(coords(i));
        if (((passed[w] >> t) & 1u) == 0 || row >= m || col >= n) continue;
        int const slot = atomicAdd(params.counts + row, 1);
        if (slot < params.capacity) {
          params.entries[static_cast<std::int64_t>(row) * params.capacity + slot] =
              (static_cast<std::uint64_t>(params.col0 + col) << 32) | __float_as_uint(static_cast<float>(acc(i)));
        }
      }
    }
  }
};

// ---- Store-only: the epilogue writes masks and values, a separate kernel appends ----

/// Where the store-only epilogue leaves each tile's results: per tile and consumer thread, its
/// mask (4 words: 128 accumulators), and the passing values of each word in kSlots slots.
struct Staging {
  static constexpr int kThreads = 256, kWords = 4, kSlots = 2;
  float const* tau;     // (m) threshold of each row
  uint4* masks;         // (tiles, kThreads)
  float* values;        // (tiles, kThreads, kWords, kSlots)
  int tiles_n;          // tiles along the chunk's columns
};

/// The epilogue of the store-only design: the same mask as ThresholdEpilogue's, then one 16-byte
/// store of it and, for the words with a bit, up to kSlots stores of values: no atomic, no load
/// whose result it waits for, so the consumer warps go back to the tensor cores at once.
struct StoreEpilogue : OperatorEpilogue<StoreEpilogue, Staging> {
  using OperatorEpilogue<StoreEpilogue, Staging>::OperatorEpilogue;

  template <class AccTensor, class Coords, int kWords, class TileCoordMNKL>
  CUTLASS_DEVICE void take(AccTensor const& acc, Coords const&, std::uint32_t const (&passed)[kWords], int, int,
                           TileCoordMNKL tile_coord, int thread_idx) const {
    static_assert(kWords == Staging::kWords, "one mask word per 32 accumulators");
    std::int64_t const slot = (static_cast<std::int64_t>(get<0>(tile_coord)) * params.tiles_n + get<1>(tile_coord)) *
                                  Staging::kThreads + thread_idx;
    params.masks[slot] = make_uint4(passed[0], passed[1], passed[2], passed[3]);
    CUTLASS_PRAGMA_UNROLL
    for (int w = 0; w < Staging::kWords; ++w) {
      if (passed[w] == 0) continue;
      int stored = 0;
      CUTLASS_PRAGMA_UNROLL
      for (int t = 0; t < 32; ++t) {
        if (((passed[w] >> t) & 1u) == 0) continue;
        if (stored < Staging::kSlots) {
          params.values[(slot * Staging::kWords + w) * Staging::kSlots + stored] = static_cast<float>(acc(w * 32 + t));
        }
        ++stored;
      }
    }
  }
};

/// The appends of the store-only design: a block per tile, its threads as the epilogue's, each
/// decoding its bits to (row, column) by the same partition. A value past its word's slots is not
/// stored (the design recomputes it exactly; counted here in `unstored`).
template <class TiledMma, class TileShape>
__global__ void append_staged(Staging st, int m, int n, Lists lists, int* unstored) {
  std::int64_t const slot = static_cast<std::int64_t>(blockIdx.x) * Staging::kThreads + threadIdx.x;
  uint4 const mask = st.masks[slot];
  std::uint32_t const words[Staging::kWords] = {mask.x, mask.y, mask.z, mask.w};
  if ((mask.x | mask.y | mask.z | mask.w) == 0) return;
  auto const coords = accumulator_coords(m, n, TileShape{},
                                        make_coord(static_cast<int>(blockIdx.x) / st.tiles_n,
                                                   static_cast<int>(blockIdx.x) % st.tiles_n),
                                        TiledMma{}, static_cast<int>(threadIdx.x));
  CUTLASS_PRAGMA_UNROLL
  for (int w = 0; w < Staging::kWords; ++w) {
    int stored = 0;
    CUTLASS_PRAGMA_UNROLL
    for (int t = 0; t < 32; ++t) {
      if (((words[w] >> t) & 1u) == 0) continue;
      int const row = get<0>(coords(w * 32 + t)), col = get<1>(coords(w * 32 + t));
      if (stored >= Staging::kSlots) {
        atomicAdd(unstored, 1);
      } else if (row < m && col < n) {
        float const v = st.values[(slot * Staging::kWords + w) * Staging::kSlots + stored];
        int const at = atomicAdd(lists.counts + row, 1);
        if (at < lists.capacity) {
          lists.entries[static_cast<std::int64_t>(row) * lists.capacity + at] =
              (static_cast<std::uint64_t>(lists.col0 + col) << 32) | __float_as_uint(v);
        }
      }
      ++stored;
    }
  }
}

// ---- The kernels: per schedule, one mainloop and two epilogues, per element type of the rows ----

using ClusterShape = Shape<_1, _2, _1>;

/// Both consumer warpgroups on one 128 x 256 tile. Ping-pong (each on its own 64 x 256 tile in
/// turn, one's epilogue under the other's mainloop) was slower, storing and fused (run 81:
/// bfloat16 35.8 and 62.3 ms against 25.2 and 49.1; int8 3.87 and 12.8 against 4.09 and 7.14).
struct Cooperative {
  static constexpr char const* kName = "cooperative";
  using TileM = _128;
  using Mainloop = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
  using Epilogue = cutlass::epilogue::TmaWarpSpecializedCooperative;
};

/// bfloat16 rows: float accumulators, a bfloat16 product; int8 rows: int32 accumulators and product.
template <class ElementAB, class Schedule>
struct Rows {
  static constexpr bool kInt8 = std::is_same_v<ElementAB, std::int8_t>;
  using Element = ElementAB;
  using Accumulator = std::conditional_t<kInt8, std::int32_t, float>;
  using Product = std::conditional_t<kInt8, std::int32_t, cutlass::bfloat16_t>;
  using TileShape = Shape<typename Schedule::TileM, _256, std::conditional_t<kInt8, _128, _64>>;  // 128-byte K
  static constexpr int kAlignAB = 16 / sizeof(Element);
  static constexpr int kAlignD = 16 / sizeof(Product);

  template <class ElementD, class Fusion>
  using EpilogueOf = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, Accumulator, float, void, cutlass::layout::RowMajor, kAlignD,
      ElementD, cutlass::layout::RowMajor, kAlignD, typename Schedule::Epilogue, Fusion>::CollectiveOp;

  template <class Epilogue, class Cluster = ClusterShape>
  using GemmOf = cutlass::gemm::device::GemmUniversalAdapter<cutlass::gemm::kernel::GemmUniversal<
      Shape<int, int, int, int>,
      typename cutlass::gemm::collective::CollectiveBuilder<
          cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, Element, cutlass::layout::RowMajor, kAlignAB, Element,
          cutlass::layout::ColumnMajor, kAlignAB, Accumulator, TileShape, Cluster,
          cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
          typename Schedule::Mainloop>::CollectiveOp,
      Epilogue>>;

  using StoringGemm =
      GemmOf<EpilogueOf<Product, cutlass::epilogue::fusion::LinearCombination<Product, float, void, float>>>;
  template <Work kWork>
  using FusedGemmOf = GemmOf<
      EpilogueOf<void, cutlass::epilogue::fusion::Sm90EVT<ThresholdAppend<kWork>, cutlass::epilogue::fusion::Sm90AccFetch>>>;
  using FusedGemm = FusedGemmOf<Work::kFilter>;
  using BroadcastGemm = GemmOf<EpilogueOf<
      void, cutlass::epilogue::fusion::Sm90EVT<
                ThresholdAppend<Work::kBroadcast>, cutlass::epilogue::fusion::Sm90AccFetch,
                cutlass::epilogue::fusion::Sm90ColBroadcast<0, TileShape, float>,     // tau[row]
                cutlass::epilogue::fusion::Sm90RowBroadcast<0, TileShape, float>>>>;  // term[col]
  template <Work kWork>
  using RowThresholdGemmOf = GemmOf<EpilogueOf<
      void, cutlass::epilogue::fusion::Sm90EVT<ThresholdAppend<kWork>, cutlass::epilogue::fusion::Sm90AccFetch,
                                               cutlass::epilogue::fusion::Sm90ColBroadcast<0, TileShape, float>>>>;
  using OwnEpilogueGemm = GemmOf<cutlass::epilogue::collective::detail::Sm90TmaWarpSpecializedAdapter<ThresholdEpilogue>>;
  // The pair of a cluster along M instead: y's 256-row tile (the larger operand) multicast to
  // both, ~32 KB loaded per k-block and block instead of ~40 (ncu run 87: the mainloop waits on
  // TMA's data 13% of the samples).
  using OwnEpilogueGemmClusterM =
      GemmOf<cutlass::epilogue::collective::detail::Sm90TmaWarpSpecializedAdapter<ThresholdEpilogue>, Shape<_2, _1, _1>>;
  using StoreGemm = GemmOf<cutlass::epilogue::collective::detail::Sm90TmaWarpSpecializedAdapter<StoreEpilogue>>;
};

/// Runs Gemm on x (m, d) against y's rows [0, cols) (d each) with its epilogue's arguments.
template <class Gemm, class Element>
void launch_gemm(int m, int cols, int d, Element const* x, Element const* y,
                 typename Gemm::GemmKernel::CollectiveEpilogue::Arguments const& epilogue, void* workspace,
                 cudaStream_t stream) {
  using Kernel = typename Gemm::GemmKernel;
  typename Kernel::StrideA const sa{std::int64_t(d), Int<1>{}, std::int64_t(m) * d};
  typename Kernel::StrideB const sb{std::int64_t(d), Int<1>{}, std::int64_t(cols) * d};
  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {m, cols, d, 1}, {x, sa, y, sb}, epilogue};
  Gemm gemm;
  if (gemm.can_implement(args) != cutlass::Status::kSuccess ||
      gemm.initialize(args, workspace, stream) != cutlass::Status::kSuccess ||
      gemm.run(stream) != cutlass::Status::kSuccess) {
    std::fprintf(stderr, "CUTLASS GEMM failed (m %d, cols %d, d %d)\n", m, cols, d);
    std::exit(1);
  }
}

/// The same for a TMA epilogue: D (m, cols) row-major, if any, and the visitor tree's arguments.
template <class Gemm, class Element, class Product>
void run_gemm(int m, int cols, int d, Element const* x, Element const* y, Product* out,
              typename Gemm::GemmKernel::CollectiveEpilogue::FusionCallbacks::Arguments const& fusion,
              void* workspace, cudaStream_t stream) {
  typename Gemm::GemmKernel::StrideD const sd{std::int64_t(cols), Int<1>{}, std::int64_t(m) * cols};
  launch_gemm<Gemm>(m, cols, d, x, y, {fusion, nullptr, {}, out, sd}, workspace, stream);
}

// ---- Inputs and the reference check ----

__device__ std::uint64_t mixed(std::uint64_t i) {
  std::uint64_t h = i * 0x9E3779B97F4A7C15ull;
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 29);
}
/// Uniform values: bfloat16 in [-1, 1), int8 over its whole range.
template <class Element>
__global__ void fill_uniform(Element* out, std::int64_t count, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t const h = mixed(static_cast<std::uint64_t>(i) + seed);
    if constexpr (std::is_same_v<Element, std::int8_t>) {
      out[i] = static_cast<std::int8_t>(static_cast<int>(h >> 56) - 128);
    } else {
      out[i] = Element(static_cast<float>(h >> 40) / 16777216.0f * 2.0f - 1.0f);
    }
  }
}

/// Per row, the reference's values >= tau (counts) and those within `slack` of tau (near).
template <class Reference>
__global__ void count_reference(Reference const* product, int cols, float const* tau, float slack, int* counts,
                                int* near) {
  int const row = blockIdx.x;
  int passed = 0, close = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    auto const v = static_cast<float>(product[static_cast<std::int64_t>(row) * cols + c]);
    passed += v >= tau[row];
    close += fabsf(v - tau[row]) <= slack;
  }
  atomicAdd(counts + row, passed);
  atomicAdd(near + row, close);
}

/// Fused entries whose value is below tau or off the reference by more than `slack`.
template <class Reference>
__global__ void check_entries(std::uint64_t const* entries, int const* counts, int capacity,
                              Reference const* product, int cols, float const* tau, float slack, int* bad) {
  int const row = blockIdx.x;
  int const count = min(counts[row], capacity);
  for (int s = threadIdx.x; s < count; s += blockDim.x) {
    std::uint64_t const e = entries[static_cast<std::int64_t>(row) * capacity + s];
    std::int64_t const col = static_cast<std::int64_t>(e >> 32);
    float const v = __uint_as_float(static_cast<unsigned>(e));
    bool const ok = col >= 0 && col < cols && v >= tau[row] &&
                    fabsf(v - static_cast<float>(product[static_cast<std::int64_t>(row) * cols + col])) <= slack;
    if (!ok) atomicAdd(bad, 1);
  }
}

struct Timer {
  cudaEvent_t start, stop;
  Timer() {
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
  }
  void begin(cudaStream_t s) { CHECK_CUDA(cudaEventRecord(start, s)); }
  float end_ms(cudaStream_t s) {
    CHECK_CUDA(cudaEventRecord(stop, s));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
};

template <class T>
T* device_alloc(std::int64_t count) {
  T* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, sizeof(T) * static_cast<std::size_t>(count)));
  return p;
}

/// The three timings and the check for rows of ElementAB; 0 when the check passes.
template <class ElementAB, class Schedule>
int measure(char const* name, int m, std::int64_t n, int d, int chunk, float threshold) {
  using R = Rows<ElementAB, Schedule>;
  using Element = typename R::Element;
  using Product = typename R::Product;
  using Reference = std::conditional_t<R::kInt8, std::int32_t, float>;  // exact for int8
  using StoringGemm = typename R::StoringGemm;
  using FusedGemm = typename R::FusedGemm;
  int const capacity = 1024;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  Element* x = device_alloc<Element>(std::int64_t(m) * d);
  Element* y = device_alloc<Element>(n * d);
  Product* product = device_alloc<Product>(std::int64_t(m) * chunk);
  Reference* reference = device_alloc<Reference>(std::int64_t(m) * chunk);
  float* tau = device_alloc<float>(m);
  int* counts = device_alloc<int>(m);
  int* ref_counts = device_alloc<int>(m);
  int* near = device_alloc<int>(m);
  int* bad = device_alloc<int>(1);
  auto* entries = device_alloc<std::uint64_t>(std::int64_t(m) * capacity);
  fill_uniform<<<1024, 256, 0, stream>>>(x, std::int64_t(m) * d, 1);
  fill_uniform<<<4096, 256, 0, stream>>>(y, n * d, std::uint64_t(1) << 40);
  std::vector<float> const taus(m, threshold);
  CHECK_CUDA(cudaMemcpy(tau, taus.data(), sizeof(float) * m, cudaMemcpyHostToDevice));

  cublasHandle_t blas;
  CHECK_CUBLAS(cublasCreate(&blas));
  CHECK_CUBLAS(cublasSetStream(blas, stream));
  // Column-major: the (cols, m) product of y's rows (op T) and x's rows (op N) is P (m, cols)
  // row-major; int8 takes this "TN" form with int32 scalars and output.
  auto cublas_product = [&](std::int64_t col0, int cols, void* out, bool reference_type) {
    if constexpr (R::kInt8) {
      (void)reference_type;
      std::int32_t const one = 1, zero = 0;
      CHECK_CUBLAS(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, cols, m, d, &one, y + col0 * d, CUDA_R_8I, d, x,
                                CUDA_R_8I, d, &zero, out, CUDA_R_32I, cols, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    } else {
      float const one = 1.0f, zero = 0.0f;
      CHECK_CUBLAS(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, cols, m, d, &one, y + col0 * d, CUDA_R_16BF, d, x,
                                CUDA_R_16BF, d, &zero, out, reference_type ? CUDA_R_32F : CUDA_R_16BF, cols,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
  };

  void* workspace = nullptr;
  {
    // The larger workspace of the two CUTLASS kernels at a full chunk.
    typename StoringGemm::Arguments a{cutlass::gemm::GemmUniversalMode::kGemm, {m, chunk, d, 1}, {}, {}};
    typename FusedGemm::Arguments b{cutlass::gemm::GemmUniversalMode::kGemm, {m, chunk, d, 1}, {}, {}};
    std::size_t const bytes = std::max(StoringGemm::get_workspace_size(a), FusedGemm::get_workspace_size(b));
    if (bytes > 0) CHECK_CUDA(cudaMalloc(&workspace, bytes));
  }

  auto over_chunks = [&](auto&& body) {
    for (std::int64_t col0 = 0; col0 < n; col0 += chunk) {
      body(col0, static_cast<int>(std::min<std::int64_t>(chunk, n - col0)));
    }
  };
  // Entries appended over all chunks (the two filters must agree).
  auto const sum_counts = [&] {
    std::vector<int> c(m);
    CHECK_CUDA(cudaMemcpyAsync(c.data(), counts, sizeof(int) * m, cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    long long total = 0;
    for (int v : c) total += v;
    return total;
  };
  // The store-only design's staging for the widest chunk, and its two steps per chunk.
  int const tiles_m = (m + 127) / 128, max_tiles_n = (chunk + 255) / 256;
  std::int64_t const staged = std::int64_t(tiles_m) * max_tiles_n * Staging::kThreads;
  auto* masks = device_alloc<uint4>(staged);
  auto* staged_values = device_alloc<float>(staged * Staging::kWords * Staging::kSlots);
  int* unstored = device_alloc<int>(1);
  CHECK_CUDA(cudaMemsetAsync(unstored, 0, sizeof(int), stream));
  auto const store_chunk = [&](std::int64_t col0, int cols) {
    using Gemm = typename R::StoreGemm;
    Staging const st{tau, masks, staged_values, (cols + 255) / 256};
    launch_gemm<Gemm>(m, cols, d, x, y + col0 * d, st, workspace, stream);
    append_staged<typename Gemm::GemmKernel::TiledMma, typename Gemm::GemmKernel::TileShape>
        <<<tiles_m * st.tiles_n, Staging::kThreads, 0, stream>>>(st, m, cols, Lists{tau, counts, entries, capacity, col0},
                                                                 unstored);
    CHECK_CUDA(cudaGetLastError());
  };
  float* terms = device_alloc<float>(n);  // zeros: the filter's own test, with a term's cost
  CHECK_CUDA(cudaMemsetAsync(terms, 0, sizeof(float) * n, stream));
  Timer timer;
  for (int rep = 0; rep < 2; ++rep) {  // the first is the warm-up
    timer.begin(stream);
    over_chunks([&](std::int64_t col0, int cols) { cublas_product(col0, cols, product, false); });
    float const cublas_ms = timer.end_ms(stream);

    timer.begin(stream);
    over_chunks([&](std::int64_t col0, int cols) {
      run_gemm<StoringGemm>(m, cols, d, x, y + col0 * d, product, {}, workspace, stream);
    });
    float const cutlass_ms = timer.end_ms(stream);

    auto const time_fused = [&](auto work) {
      using Gemm = typename R::template FusedGemmOf<decltype(work)::value>;
      CHECK_CUDA(cudaMemsetAsync(counts, 0, sizeof(int) * m, stream));
      timer.begin(stream);
      over_chunks([&](std::int64_t col0, int cols) {
        typename Gemm::GemmKernel::CollectiveEpilogue::FusionCallbacks::Arguments const fusion{
            {}, Lists{tau, counts, entries, capacity, col0}};
        run_gemm<Gemm>(m, cols, d, x, y + col0 * d, static_cast<Product*>(nullptr), fusion, workspace, stream);
      });
      return timer.end_ms(stream);
    };
    float const nothing_ms = time_fused(std::integral_constant<Work, Work::kNothing>{});
    float const test_only_ms = time_fused(std::integral_constant<Work, Work::kTestOnly>{});
    float const registers_ms = time_fused(std::integral_constant<Work, Work::kRegisters>{});
    long long const registers_listed = sum_counts();
    float const fused_ms = time_fused(std::integral_constant<Work, Work::kFilter>{});
    long long const fused_listed = sum_counts();
    CHECK_CUDA(cudaMemsetAsync(counts, 0, sizeof(int) * m, stream));
    timer.begin(stream);
    over_chunks([&](std::int64_t col0, int cols) {
      using Gemm = typename R::BroadcastGemm;
      typename Gemm::GemmKernel::CollectiveEpilogue::FusionCallbacks::Arguments const fusion{
          {}, {tau}, {terms + col0}, Lists{tau, counts, entries, capacity, col0}};
      run_gemm<Gemm>(m, cols, d, x, y + col0 * d, static_cast<Product*>(nullptr), fusion, workspace, stream);
    });
    float const broadcast_ms = timer.end_ms(stream);
    long long const broadcast_listed = sum_counts();
    auto const time_row_threshold = [&](auto work) {
      using Gemm = typename R::template RowThresholdGemmOf<decltype(work)::value>;
      CHECK_CUDA(cudaMemsetAsync(counts, 0, sizeof(int) * m, stream));
      timer.begin(stream);
      over_chunks([&](std::int64_t col0, int cols) {
        typename Gemm::GemmKernel::CollectiveEpilogue::FusionCallbacks::Arguments const fusion{
            {}, {tau}, Lists{tau, counts, entries, capacity, col0}};
        run_gemm<Gemm>(m, cols, d, x, y + col0 * d, static_cast<Product*>(nullptr), fusion, workspace, stream);
      });
      return timer.end_ms(stream);
    };
    float const row_threshold_ms = time_row_threshold(std::integral_constant<Work, Work::kRowThreshold>{});
    long long const row_threshold_listed = sum_counts();
    float const deferred_ms = time_row_threshold(std::integral_constant<Work, Work::kDeferred>{});
    long long const deferred_listed = sum_counts();
    CHECK_CUDA(cudaMemsetAsync(counts, 0, sizeof(int) * m, stream));
    timer.begin(stream);
    over_chunks([&](std::int64_t col0, int cols) {
      launch_gemm<typename R::OwnEpilogueGemm>(m, cols, d, x, y + col0 * d, Lists{tau, counts, entries, capacity, col0},
                                               workspace, stream);
    });
    float const own_ms = timer.end_ms(stream);
    long long const own_listed = sum_counts();
    CHECK_CUDA(cudaMemsetAsync(counts, 0, sizeof(int) * m, stream));
    timer.begin(stream);
    over_chunks([&](std::int64_t col0, int cols) {
      launch_gemm<typename R::OwnEpilogueGemmClusterM>(m, cols, d, x, y + col0 * d,
                                                       Lists{tau, counts, entries, capacity, col0}, workspace, stream);
    });
    float const own_cluster_m_ms = timer.end_ms(stream);
    long long const own_cluster_m_listed = sum_counts();
    CHECK_CUDA(cudaMemsetAsync(counts, 0, sizeof(int) * m, stream));
    timer.begin(stream);
    over_chunks(store_chunk);
    float const store_ms = timer.end_ms(stream);
    long long const store_listed = sum_counts();
    if (rep == 1) {
      std::printf("{\"rows\": \"%s\", \"schedule\": \"%s\", \"m\": %d, \"n\": %lld, \"d\": %d, \"chunk\": %d, "
                  "\"tau\": %g,\n", name, Schedule::kName, m, static_cast<long long>(n), d, chunk, threshold);
      std::printf(" \"cublas_product_ms\": %.3f, \"cutlass_product_ms\": %.3f, \"cutlass_void_epilogue_ms\": %.3f,\n"
                  " \"cutlass_test_only_ms\": %.3f, \"cutlass_fused_filter_ms\": %.3f, \"fused_listed\": %lld,\n"
                  " \"cutlass_broadcast_filter_ms\": %.3f, \"broadcast_listed\": %lld,\n"
                  " \"cutlass_row_threshold_filter_ms\": %.3f, \"row_threshold_listed\": %lld,\n"
                  " \"cutlass_deferred_filter_ms\": %.3f, \"deferred_listed\": %lld,\n"
                  " \"cutlass_registers_filter_ms\": %.3f, \"registers_listed\": %lld,\n"
                  " \"own_epilogue_filter_ms\": %.3f, \"own_listed\": %lld,\n"
                  " \"own_epilogue_cluster_m_filter_ms\": %.3f, \"own_cluster_m_listed\": %lld,\n"
                  " \"store_only_then_append_ms\": %.3f, \"store_listed\": %lld,\n",
                  cublas_ms, cutlass_ms, nothing_ms, test_only_ms, fused_ms, fused_listed, broadcast_ms, broadcast_listed,
                  row_threshold_ms, row_threshold_listed, deferred_ms, deferred_listed, registers_ms, registers_listed,
                  own_ms, own_listed, own_cluster_m_ms, own_cluster_m_listed, store_ms, store_listed);
    }
  }

  // The check: the first chunk once more, its fused lists against cuBLAS's product.
  int const cols = static_cast<int>(std::min<std::int64_t>(chunk, n));
  float const slack = R::kInt8 ? 0.0f : 1e-3f * static_cast<float>(d);
  CHECK_CUDA(cudaMemsetAsync(counts, 0, sizeof(int) * m, stream));
  CHECK_CUDA(cudaMemsetAsync(ref_counts, 0, sizeof(int) * m, stream));
  CHECK_CUDA(cudaMemsetAsync(near, 0, sizeof(int) * m, stream));
  CHECK_CUDA(cudaMemsetAsync(bad, 0, sizeof(int), stream));
  CHECK_CUDA(cudaMemsetAsync(unstored, 0, sizeof(int), stream));
  store_chunk(0, cols);  // the store-only design: epilogue, then the appends
  cublas_product(0, cols, reference, true);
  count_reference<<<m, 256, 0, stream>>>(reference, cols, tau, slack, ref_counts, near);
  check_entries<<<m, 256, 0, stream>>>(entries, counts, capacity, reference, cols, tau, slack, bad);
  std::vector<int> got(m), want(m), close(m);
  int bad_entries = 0;
  CHECK_CUDA(cudaMemcpyAsync(got.data(), counts, sizeof(int) * m, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaMemcpyAsync(want.data(), ref_counts, sizeof(int) * m, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaMemcpyAsync(close.data(), near, sizeof(int) * m, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaMemcpyAsync(&bad_entries, bad, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  long long listed = 0, reference_listed = 0;
  int rows_off = 0, overflowed = 0;
  for (int r = 0; r < m; ++r) {
    listed += got[r];
    reference_listed += want[r];
    rows_off += std::abs(got[r] - want[r]) > close[r];
    overflowed += got[r] > capacity;
  }
  int unstored_values = 0;
  CHECK_CUDA(cudaMemcpy(&unstored_values, unstored, sizeof(int), cudaMemcpyDeviceToHost));
  // Values past their word's slots are what the design recomputes: they leave lists short here.
  bool const ok = rows_off == 0 && bad_entries == 0 && overflowed == 0 && unstored_values == 0;
  for (void* p : {static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(product),
                  static_cast<void*>(reference), static_cast<void*>(tau), static_cast<void*>(counts),
                  static_cast<void*>(ref_counts), static_cast<void*>(near), static_cast<void*>(bad),
                  static_cast<void*>(entries), static_cast<void*>(terms), static_cast<void*>(masks),
                  static_cast<void*>(staged_values), static_cast<void*>(unstored), workspace}) {
    CHECK_CUDA(cudaFree(p));
  }
  CHECK_CUBLAS(cublasDestroy(blas));
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf(" \"first_chunk_listed\": %lld, \"reference_listed\": %lld, \"rows_off_beyond_near\": %d, "
              "\"bad_entries\": %d, \"overflowed_rows\": %d, \"unstored_values\": %d, \"ok\": %s}\n",
              listed, reference_listed, rows_off, bad_entries, overflowed, unstored_values, ok ? "true" : "false");
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  std::string const rows = argc > 1 ? argv[1] : "bf16";
  bool const int8 = rows == "int8";
  if (!int8 && rows != "bf16") {
    std::fprintf(stderr, "usage: %s bf16|int8 [m n d chunk tau]\n", argv[0]);
    return 2;
  }
  int const m = argc > 2 ? std::atoi(argv[2]) : (int8 ? 16384 : 10000);
  std::int64_t const n = argc > 3 ? std::atoll(argv[3]) : (int8 ? 160000 : 1000000);
  int const d = argc > 4 ? std::atoi(argv[4]) : (int8 ? 128 : 768);
  int const chunk = argc > 5 ? std::atoi(argv[5]) : 8192;
  // ~1e-4 of the pairs pass: 3.7 standard deviations of a sum of d uniform products.
  float const tau = argc > 6 ? static_cast<float>(std::atof(argv[6])) : (int8 ? 230000.0f : 34.0f);
  return int8 ? measure<std::int8_t, Cooperative>("int8", m, n, d, chunk, tau)
              : measure<cutlass::bfloat16_t, Cooperative>("bf16", m, n, d, chunk, tau);
}
