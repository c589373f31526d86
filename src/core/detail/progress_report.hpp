// Where stepped calls report their progress (see cudist/core/progress.hpp).
#pragma once

#include <cstdint>

namespace cudist::detail {

/// Calls the installed progress hook, if any.
void report_progress(char const* who, std::int64_t done, std::int64_t total);

}  // namespace cudist::detail
