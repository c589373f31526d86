// Built when cudist has no CUDA backend: the neighbours entry points of the cuda namespace exist
// but refuse (the API layer's require_device normally stops callers before they get here).
#include "core/detail/expects.hpp"
#include "neighbors/detail/backend.hpp"

namespace cudist::neighbors::detail::cuda {

void knn(SelectProblem const&, std::int64_t, MatrixView, MatrixView, void*) {
  CUDIST_THROW(DeviceUnavailable, "knn: this build of cudist has no CUDA backend");
}

MatchResult match(SelectProblem const&, MatchCriteria const&, void*) {
  CUDIST_THROW(DeviceUnavailable, "match: this build of cudist has no CUDA backend");
}

RadiusResult radius(SelectProblem const&, double, void*) {
  CUDIST_THROW(DeviceUnavailable, "radius: this build of cudist has no CUDA backend");
}

}  // namespace cudist::neighbors::detail::cuda
