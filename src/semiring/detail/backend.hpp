// The operations each backend (cpu, cuda) implements for the semiring family.
#pragma once

#include "semiring/detail/problem.hpp"

namespace cudist::detail {

namespace cpu {
void semiring_product(SemiringProblem const& p);
}  // namespace cpu

namespace cuda {
/// Asynchronous on `stream`.
void semiring_product(SemiringProblem const& p, void* stream);
}  // namespace cuda

}  // namespace cudist::detail
