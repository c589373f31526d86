// Built when cudist has no CUDA backend: the sparse entry points of the cuda namespace exist but
// refuse (the API layer's require_device normally stops callers before they get here).
#include "core/detail/expects.hpp"
#include "sparse/detail/backend.hpp"

namespace cudist::sparse::detail::cuda {
namespace {
[[noreturn]] void not_compiled() {
  CUDIST_THROW(DeviceUnavailable, "sparse: this build of cudist has no CUDA backend");
}
}  // namespace

CsrViolation find_csr_violation(CsrView const&, void*) { not_compiled(); }
CsrMatrix transpose(CsrView const&, Device, void*) { not_compiled(); }
SpmvAnalysis analyse_spmv(CsrView const&, SpmvAlgorithm, Device, void*) { not_compiled(); }
void spmv(SpmvAnalysis const&, SpmvProblem const&, void*) { not_compiled(); }

}  // namespace cudist::sparse::detail::cuda
