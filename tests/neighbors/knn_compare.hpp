// Tie-aware comparison of a backend's kNN answer with the reference (STYLE.md 1.6.5): per row,
// the distances equal the reference's sorted distances; every index is in range, unique and
// really has the distance reported beside it; equal distances come in increasing index order;
// rows with fewer candidates than k are padded with (NaN, -1). With exact data the indices must
// then be the reference's exactly (the tie rule makes the answer unique).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <sstream>
#include <vector>

#include "common/compare.hpp"
#include "cudist/core/array.hpp"
#include "reference/knn_ref.hpp"

namespace cudist::test {

inline bool same_distance(double got, double want, Tolerance tol) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

struct KnnExpectation {
  explicit KnnExpectation(reference::Matrix const& d) : distances(&d) {}
  reference::Matrix const* distances;  // (rows, n) reference distances of the problem
  std::int64_t row_offset = 0;         // first row of the problem in the answer
  bool similarity = false;
  bool exclude_self = false;
  bool exact = false;                  // exact data: indices must equal the reference's
  Tolerance tol;
};

/// Rows [e.row_offset, e.row_offset + e.distances->rows) of a host (m, k) answer.
inline ::testing::AssertionResult knn_matches(Array const& distances, Array const& indices,
                                              KnnExpectation const& e) {
  std::int64_t const k = indices.cols();
  std::int64_t const n = e.distances->cols;
  std::ostringstream err;
  std::int64_t bad = 0;
  auto fail = [&](std::int64_t i, std::int64_t r, char const* what, double got, double want) {
    if (bad++ < 8) err << "\n  row " << i << " slot " << r << ": " << what << " (got " << got << ", want " << want << ")";
  };
  for (std::int64_t i = 0; i < e.distances->rows; ++i) {
    std::int64_t const row = e.row_offset + i;
    auto const want = reference::ranked_row(*e.distances, i, e.similarity, e.exclude_self);
    std::set<std::int64_t> seen;
    for (std::int64_t r = 0; r < k; ++r) {
      double const got_d = value_at(distances, row * k + r);
      std::int64_t const got_i = indices.data_as<std::int64_t>()[row * k + r];
      if (r >= static_cast<std::int64_t>(want.size())) {
        if (got_i != -1 || !std::isnan(got_d)) fail(i, r, "padding must be (NaN, -1)", static_cast<double>(got_i), -1);
        continue;
      }
      if (got_i < 0 || got_i >= n) { fail(i, r, "index out of range", static_cast<double>(got_i), static_cast<double>(want[r].index)); continue; }
      if (e.exclude_self && got_i == i) fail(i, r, "the point itself", static_cast<double>(got_i), -1);
      if (!seen.insert(got_i).second) fail(i, r, "duplicate index", static_cast<double>(got_i), -1);
      if (!same_distance(got_d, want[r].distance, e.tol)) fail(i, r, "distance", got_d, want[r].distance);
      if (!same_distance(got_d, (*e.distances)(i, got_i), e.tol)) fail(i, r, "index's own distance", got_d, (*e.distances)(i, got_i));
      if (e.exact && got_i != want[r].index) fail(i, r, "index (exact data)", static_cast<double>(got_i), static_cast<double>(want[r].index));
      if (r > 0) {
        double const prev_d = value_at(distances, row * k + r - 1);
        std::int64_t const prev_i = indices.data_as<std::int64_t>()[row * k + r - 1];
        bool const tie = prev_d == got_d || (std::isnan(prev_d) && std::isnan(got_d));
        if (tie && prev_i > got_i) fail(i, r, "tie not in index order", static_cast<double>(got_i), static_cast<double>(prev_i));
      }
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " problems in a " << e.distances->rows << " x " << k
                                       << " answer:" << err.str();
}

}  // namespace cudist::test
