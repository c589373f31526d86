// Progress of long calls that work in steps (out-of-core cdist / pdist windows, knn database
// chunks): a process-wide hook, as the interrupt request is, so that a tool can draw one progress
// bar without threading a callback through every signature.
#pragma once

#include <cstdint>

namespace cudist {

/// Called on the calling thread after each step of a stepped call: `done` of `total` units (rows
/// of the result, rows of the database) are finished. `who` names the call ("cdist").
using ProgressHook = void (*)(char const* who, std::int64_t done, std::int64_t total);

/// Installs `hook` (nullptr: none) for every later call in the process; returns the previous one.
ProgressHook set_progress_hook(ProgressHook hook) noexcept;

}  // namespace cudist
