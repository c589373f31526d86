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

/// The memory a backend on `device` computes in: device memory on a GPU, host memory on the CPU.
inline Memory backend_memory(Device device) {
  return device.is_cuda() ? Memory::kDevice : Memory::kHost;
}

/// An input in the backend's memory: `v` itself when it already lives there, else a dense copy in
/// `staging` (on `device`).
ConstMatrixView staged(ConstMatrixView v, Device device, void* stream, std::optional<Array>& staging);

/// An output in the backend's memory: `v` itself (memory resolved) when it lives there, else a
/// new array in `staging` on `device`, holding v's values when the backend reads them (`read`,
/// e.g. an accumulate form). The caller copies `staging` back to `v` after the backend ran.
MatrixView staged_output(MatrixView v, Device device, void* stream, bool read,
                         std::optional<Array>& staging);

}  // namespace cudist::detail
