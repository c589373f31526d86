// Where the backends poll cudist's interrupt request (see cudist/core/interrupt.hpp). Loops inside
// an OpenMP region cannot throw: they skip their remaining work while interrupt_requested() and
// the code after the region calls throw_if_interrupted.
#pragma once

#include "core/detail/expects.hpp"
#include "cudist/core/interrupt.hpp"

namespace cudist::detail {

/// Throws Interrupted ("who: interrupted") when an interrupt has been requested.
void throw_if_interrupted(char const* who);

}  // namespace cudist::detail
