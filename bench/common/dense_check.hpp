// Inputs and spot checks shared by the dense-family suites: seeded host inputs with their float64
// values, and a check of sampled output rows against the independent reference.
#pragma once

#include <cstdint>
#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/distance/pairwise.hpp"
#include "reference/pairwise_ref.hpp"

namespace cudist::bench {

struct HostInput {
  Array array;               // host, dense
  reference::Matrix values;  // float64 copy
};

/// Uniform [-1, 1) floats, or random bytes for uint8.
HostInput random_input(std::int64_t rows, std::int64_t cols, DType dtype, std::uint64_t seed);

/// Rows 0, middle and last of a device (m, n) float32 output against the reference, within
/// `tolerance` relative and absolute (1e-4: float32's rounding; larger for precision tf32).
bool check_rows(Array const& out, HostInput const& x, HostInput const& y, Metric metric, double tolerance = 1e-4);

/// The same for a condensed pdist output.
bool check_condensed_rows(Array const& out, HostInput const& x, Metric metric, double tolerance = 1e-4);

}  // namespace cudist::bench
