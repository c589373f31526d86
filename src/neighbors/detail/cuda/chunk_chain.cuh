// A row tile's column chunks as a chain, for the tensor-core searches' top-k consumers: a chunk
// starts from the answers of the last chunk of its row tile that has written them
// (RowBufferSelect::take_answers), so its rows' bars start at the k-th key over every column the
// chunks before it saw, and it ends with the best k of both. Without it every chunk narrowed its
// rows' bars again from nothing (or from one other chunk's k-th): ~13 exact sums per row and
// chunk in the float32 search (ncu, H200 run 115 of 2026-11-28; docs/tuning.md). A chunk's
// answers are real pairs with their exact keys, so any chunk's serve, even a later one's; the
// merge (merge_chunks.cuh) takes an entry that several chunks hold once. The grid runs chunk 0 of
// every row tile first (WorkGrid::chunks_outer), so that a chunk's predecessor has usually
// finished when it starts.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "neighbors/detail/cuda/work_grid.cuh"

namespace cudist::neighbors::detail::cuda {

struct ChunkChain {
  int* finished = nullptr;  // (row tiles): 1 + the last chunk of the tile that wrote its answers,
                            // 0 before the search; null: no chain

  /// The chunk of row tile `tile` whose answers a starting block may take, or -1. One thread
  /// calls; the block reads the answers after a barrier that follows.
  __device__ int last_finished(std::int64_t tile) const {
    if (finished == nullptr) return -1;
    int const word = atomicAdd(finished + tile, 0);
    __threadfence();  // the answers it names are read after it
    return word - 1;
  }

  /// After the chunk's answers are written: every thread's writes, then the tile's word. Every
  /// thread of the block calls.
  __device__ void publish(WorkItem const& w, int tid) const {
    if (finished == nullptr) return;
    __threadfence();
    __syncthreads();
    if (tid == 0) atomicMax(finished + w.row_tile, w.chunk + 1);
  }
};

}  // namespace cudist::neighbors::detail::cuda
