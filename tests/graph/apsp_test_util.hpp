// Helpers of the apsp tests: weight matrices in the backend's dtype beside their float64 values,
// apsp on a device with the answer on the host, and the checks against the references
// (reference/shortest_paths_ref.hpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "common/backend.hpp"
#include "cudist/graph/apsp.hpp"
#include "reference/shortest_paths_ref.hpp"

namespace cudist::test {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// A dense weight matrix in `dtype` (host) and the same values in float64.
struct WeightMatrix {
  Array array;
  reference::Matrix values;
};

inline WeightMatrix weights_from(reference::Matrix const& values, DType dtype) {
  WeightMatrix w{Array::allocate(values.rows, values.cols, dtype, Device::cpu()), values};
  for (std::size_t e = 0; e < values.v.size(); ++e) {
    if (dtype == DType::kFloat64) {
      w.array.data_as<double>()[e] = values.v[e];
    } else {
      w.array.data_as<float>()[e] = static_cast<float>(values.v[e]);
      w.values.v[e] = static_cast<float>(values.v[e]);  // what the backend sees
    }
  }
  return w;
}

struct Solved {
  Array dist;  // host
  Array next;  // host
};

/// apsp on `dev` with a next-hop matrix, on the host.
inline Solved solve(WeightMatrix const& w, bool directed, Device dev = backend_device()) {
  Array const wd = Array::copy_of(w.array, dev);
  std::int64_t const n = w.values.rows;
  Array next = Array::allocate(n, n, DType::kInt32, dev);
  ApspOptions o;
  o.directed = directed;
  o.next = next.view();
  Array const dist = apsp(Resources(dev), wd, o);
  return {to_host(dist), to_host(next)};
}

/// apsp on `dev` without a next-hop matrix (its kernels keep no hops), on the host.
inline Array distances_only(WeightMatrix const& w, bool directed, Device dev = backend_device()) {
  ApspOptions o;
  o.directed = directed;
  return to_host(apsp(Resources(dev), Array::copy_of(w.array, dev), o));
}

inline bool same_bytes(Array const& a, Array const& b) {
  return a.bytes() == b.bytes() && std::memcmp(a.data(), b.data(), a.bytes()) == 0;
}

inline double dist_at(Array const& d, std::int64_t i, std::int64_t j) {
  std::int64_t const e = i * d.cols() + j;
  return d.dtype() == DType::kFloat64 ? d.data_as<double>()[e] : d.data_as<float>()[e];
}

/// Distances from each of `sources` against the reference, within tol (relative to the distance).
inline ::testing::AssertionResult distances_match(Array const& dist, reference::Graph const& g,
                                                  std::function<std::vector<double>(std::int64_t)> const& from,
                                                  double tol, std::vector<std::int64_t> const& sources) {
  for (std::int64_t s : sources) {
    std::vector<double> const want = from(s);
    for (std::int64_t t = 0; t < g.n; ++t) {
      double const got = dist_at(dist, s, t), w = want[static_cast<std::size_t>(t)];
      bool const ok = std::isinf(w) ? got == w : std::fabs(got - w) <= tol * std::max(1.0, std::fabs(w));
      if (!ok) {
        return ::testing::AssertionFailure() << "dist(" << s << ", " << t << ") = " << got
                                             << " but the reference says " << w;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

/// The same from every source.
inline ::testing::AssertionResult distances_match(Array const& dist, reference::Graph const& g,
                                                  std::function<std::vector<double>(std::int64_t)> const& from,
                                                  double tol) {
  std::vector<std::int64_t> every(static_cast<std::size_t>(g.n));
  for (std::int64_t s = 0; s < g.n; ++s) every[static_cast<std::size_t>(s)] = s;
  return distances_match(dist, g, from, tol, every);
}

/// Every path read from next (for the given pairs) starts and ends right, uses edges of the
/// graph, and is as long as the distance.
inline ::testing::AssertionResult paths_are_shortest(Solved const& s, reference::Graph const& g,
                                                     std::vector<std::pair<std::int64_t, std::int64_t>> const& pairs,
                                                     double tol) {
  for (auto const& [from, to] : pairs) {
    std::vector<std::int64_t> const path = apsp_path(s.next, from, to);
    double const d = dist_at(s.dist, from, to);
    if (path.empty()) {
      if (!std::isinf(d)) return ::testing::AssertionFailure() << "no path " << from << " -> " << to << " of length " << d;
      continue;
    }
    if (path.front() != from || path.back() != to) {
      return ::testing::AssertionFailure() << "path " << from << " -> " << to << " has the wrong ends";
    }
    double length = 0;
    for (std::size_t h = 1; h < path.size(); ++h) length += g.weight(path[h - 1], path[h]);
    if (!(std::fabs(length - d) <= tol * std::max(1.0, std::fabs(d)))) {
      return ::testing::AssertionFailure() << "path " << from << " -> " << to << " has length " << length
                                           << " but the distance is " << d << " (" << path.size() << " vertices)";
    }
  }
  return ::testing::AssertionSuccess();
}

inline std::vector<std::pair<std::int64_t, std::int64_t>> all_pairs(std::int64_t n) {
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) pairs.push_back({i, j});
  return pairs;
}

}  // namespace cudist::test
