// The interface between the CUDA orchestration of knn / match / radius (select_cuda.cu) and the
// translation units that instantiate the fused selection kernel for every op (inst/*.cu): plain
// data that does not depend on the op or its key type, and one entry point per consumer and
// input kind.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "neighbors/detail/cuda/select_policy.hpp"
#include "neighbors/detail/cuda/work_grid.cuh"
#include "neighbors/detail/problem.hpp"

namespace cudist::neighbors::detail::cuda {

/// A fused launch: the problem (its x and y may be uint8 rows read as 32-bit words, see
/// packed_u8_l2.cuh), the blocks' work, and the optional mutual-check observer.
struct FusedLaunch {
  SelectProblem const* problem;
  WorkGrid grid;
  std::int64_t blocks;  // row tiles x chunks
  void* column_best;    // (n) 64-bit entries, or null
  std::uint32_t* row_bars = nullptr;  // (m): the rows' bars pooled over their chunks (tensor-core
                                      // search), all bits set before the search; or null
  int* finished_chunks = nullptr;     // (row tiles): 1 + the last chunk of the tile whose answers
                                      // are written, 0 before the search; or null
};

/// What the consumers need, in terms that do not depend on the key type; each consumer turns it
/// into its own Params (from()).
struct SelectArgs {
  void* partial = nullptr;  // top-k, best two: (m, chunks, k) entries
  int k = 0;
  int capacity = 0;         // top-k row buffers
  int chunks = 1;
  double radius = 0;        // radius: the bound in distance units
  std::int64_t* counts = nullptr;
  std::int64_t const* starts = nullptr;
  std::int64_t* indices = nullptr;
  void* distances = nullptr;
};

/// The arguments of a selection of the k nearest (the best two for k <= 2, row buffers above);
/// partial and chunks are the caller's to set.
inline SelectArgs nearest_args(std::int64_t k) {
  SelectArgs a;
  a.k = static_cast<int>(k);
  a.capacity = k <= 2 ? 0 : row_buffer_capacity(k);
  return a;
}

enum class InputKind { kFloat, kDouble, kInteger };

// One per consumer and input kind (inst/*.cu).
void run_two_best_float(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);
void run_two_best_double(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);
void run_two_best_integer(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);
void run_top_k_float(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);
void run_top_k_double(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);
void run_top_k_integer(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);
void run_radius_float(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);
void run_radius_double(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);
void run_radius_integer(FusedLaunch const& f, SelectArgs const& a, cudaStream_t stream);

}  // namespace cudist::neighbors::detail::cuda
