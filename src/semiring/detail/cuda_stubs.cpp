// Built when cudist has no CUDA backend: the semiring entry point of the cuda namespace exists
// but refuses (the API layer's require_device normally stops callers before they get here).
#include "core/detail/expects.hpp"
#include "semiring/detail/backend.hpp"

namespace cudist::detail::cuda {

void semiring_product(SemiringProblem const&, void*) {
  CUDIST_THROW(DeviceUnavailable, "semiring_product: this build of cudist has no CUDA backend");
}

}  // namespace cudist::detail::cuda
