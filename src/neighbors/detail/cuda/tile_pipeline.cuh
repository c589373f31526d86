// A block's walk over its chunk's column tiles of y when the tiles come by TMA (Hopper): kStages
// stages, each with an mbarrier that counts its copy's bytes (full) and a count of its warps'
// releases. The last warp to release a stage issues the stage's next copy (tile t + kStages)
// at once, so no thread ever waits for a stage to empty and no block barrier runs between
// tiles: a warp may run up to kStages - 1 tiles ahead of the slowest, and a warp's burst of
// offers holds up no other warp (the tile barrier was 12-16% of K3's stall samples: ncu runs
// 129, 133). When thread 0 issued every copy it first waited for the stage's last release,
// holding its warp, and with it its warpgroup's wgmmas, to the slowest warp (ncu run 164: 8.7%
// of K3's stall samples on mbarrier waits). An interrupt is polled by the issuing thread alone,
// which then sends the tile it would have copied without a copy, marked as the block's stop:
// every warp leaves there, with no copy in flight (a block barrier there was 6.4% of K3's: ncu
// run 155).
//
//   thread 0:  Pipeline::first(...)              the first kStages tiles' copies
//   loop t:    if (!pipe.wait(s, t)) break;      tile t in stage pipe.stage
//              ... the warp's reads of the stage ...
//              pipe.release(s, lane, t, ...);    the warp is done with it
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include "core/cuda/interrupt_word.cuh"
#include "distance/detail/cuda/tma.cuh"

namespace cudist::neighbors::detail::cuda {

template <int kStages, int kWarps>
struct TilePipeline {
  struct Storage {
    alignas(8) std::uint64_t full[kStages];
    unsigned released[kStages];  // every release of the stage so far: kWarps a use
    int stop_tile;               // the tile at which an interrupt stops the block, or -1
  };

  int stage = 0;       // tile t's stage
  unsigned phase = 0;  // the parity of this use of the stage's barrier

  __device__ static unsigned full_barrier(Storage& s, int stage) {
    return cudist::detail::cuda::tma::shared_address(&s.full[stage]);
  }

  /// Thread 0, before the block's first barrier.
  __device__ static void init(Storage& s) {
    s.stop_tile = -1;
    for (int i = 0; i < kStages; ++i) {
      cudist::detail::cuda::tma::init(full_barrier(s, i));
      s.released[i] = 0;
    }
  }

  /// Thread 0, after init: the copies of the first kStages of `tiles` tiles, issue(stage, tile,
  /// full barrier) each (the barrier told to expect its bytes).
  template <class Issue>
  __device__ static void first(Storage& s, int tiles, Issue&& issue) {
    for (int i = 0; i < kStages && i < tiles; ++i) issue(i, i, full_barrier(s, i));
  }

  /// Every thread: waits for tile t's copy; false where the block stops at t.
  __device__ bool wait(Storage& s, int t) const {
    cudist::detail::cuda::tma::wait(full_barrier(s, stage), phase);
    return s.stop_tile != t;
  }

  /// Every thread, once its warp has read tile t's stage for the last time (of `tiles`): the
  /// warp's release. The block's last warp to release the stage issues tile t + kStages into it,
  /// or, where the poll (every poll_tiles tiles) finds a request, sends that tile as the stop,
  /// without a copy. Then the next stage.
  template <class Issue>
  __device__ void release(Storage& s, int lane, int t, int tiles, cudist::detail::cuda::InterruptPoll const& poll,
                          int poll_tiles, Issue&& issue) {
    __syncwarp();
    if (lane == 0) {
      // acq_rel: the other warps' reads of the stage happen before the last one's copy into it,
      // and a stop published by an earlier tile's issuer is seen here.
      ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_block> released(s.released[stage]);
      bool const last = released.fetch_add(1u, ::cuda::memory_order_acq_rel) % kWarps == kWarps - 1;
      int const u = t + kStages;
      if (last && u < tiles && s.stop_tile < 0) {
        if (u % poll_tiles == 0 && cudist::detail::cuda::interrupt_seen(poll)) {
          s.stop_tile = u;
          cudist::detail::cuda::tma::arrive(full_barrier(s, stage));  // publishes the stop to u's waiters
        } else {
          cudist::detail::cuda::wgmma::writes_to_async_proxy();  // the reads above, before the copy's writes
          issue(stage, u, full_barrier(s, stage));
        }
      }
    }
    if (++stage == kStages) stage = 0, phase ^= 1u;
  }
};

}  // namespace cudist::neighbors::detail::cuda
