// Built when cudist has no CUDA backend: the pairwise entry points of the cuda namespace exist
// but refuse (the API layer's require_device normally stops callers before they get here).
#include "core/detail/expects.hpp"
#include "distance/detail/backend.hpp"

namespace cudist::detail::cuda {

void pairwise(PairwiseProblem const&, void*) {
  CUDIST_THROW(DeviceUnavailable, "pairwise: this build of cudist has no CUDA backend");
}

void prepare_rows(RowPrep const&, void*) {
  CUDIST_THROW(DeviceUnavailable, "pairwise: this build of cudist has no CUDA backend");
}

}  // namespace cudist::detail::cuda
