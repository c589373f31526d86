// Resolving where a view's memory lives, and staging views into the memory a backend needs.
#pragma once

#include <optional>

#include "cudist/core/array.hpp"
#include "cudist/core/matrix_view.hpp"

namespace cudist::detail {

/// kHost or kDevice: kAuto is asked of the CUDA runtime.
Memory resolve_memory(void const* data, Memory declared);

template <class ViewT>
ViewT resolved(ViewT v) {
  v.memory = resolve_memory(v.data, v.memory);
  return v;
}

/// `v` itself when it already lives in `memory`, else a dense copy in `staging` (on `device`).
ConstMatrixView staged(ConstMatrixView v, Device device, void* stream, std::optional<Array>& staging);

}  // namespace cudist::detail
