// Built when cudist has no CUDA backend: the graph steps of the cuda namespace exist but refuse
// (the API layer's require_device normally stops callers before they get here).
#include "core/detail/expects.hpp"
#include "graph/detail/backend.hpp"

namespace cudist::detail::cuda {

void prepare_graph(MatrixView, MatrixView, bool, void*) {
  CUDIST_THROW(DeviceUnavailable, "apsp: this build of cudist has no CUDA backend");
}

void close_diagonal_block(MatrixView, MatrixView, void*) {
  CUDIST_THROW(DeviceUnavailable, "apsp: this build of cudist has no CUDA backend");
}

std::int64_t out_edge_offsets(ConstMatrixView, std::int64_t*, void*) {
  CUDIST_THROW(DeviceUnavailable, "apsp: this build of cudist has no CUDA backend");
}

void gather_edges(ConstMatrixView, EdgeListsOut, void*) {
  CUDIST_THROW(DeviceUnavailable, "apsp: this build of cudist has no CUDA backend");
}

bool bellman_ford_every_source(EdgeListsView, MatrixView, MatrixView, void*) {
  CUDIST_THROW(DeviceUnavailable, "apsp: this build of cudist has no CUDA backend");
}

}  // namespace cudist::detail::cuda
