// The independent oracle for nearest neighbours: the float64 reference distances (pairwise_ref.hpp),
// then a stable sort per row. Nearest first (largest first for a similarity), NaN after every
// other distance, ties in index order; nothing shared with the library's selection code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "reference/pairwise_ref.hpp"

namespace cudist::reference {

struct Neighbor {
  double distance;
  std::int64_t index;
};

/// Every candidate of row i of d (excluding column i when exclude_self), nearest first.
inline std::vector<Neighbor> ranked_row(Matrix const& d, std::int64_t i, bool similarity,
                                        bool exclude_self) {
  std::vector<Neighbor> row;
  for (std::int64_t j = 0; j < d.cols; ++j) {
    if (!(exclude_self && i == j)) row.push_back({d(i, j), j});
  }
  std::stable_sort(row.begin(), row.end(), [similarity](Neighbor const& a, Neighbor const& b) {
    if (std::isnan(a.distance) || std::isnan(b.distance)) return !std::isnan(a.distance) && std::isnan(b.distance);
    return similarity ? a.distance > b.distance : a.distance < b.distance;
  });
  return row;
}

/// The first k neighbours of every row of x among the rows of y.
inline std::vector<std::vector<Neighbor>> knn(Matrix const& x, Matrix const& y, std::int64_t k,
                                              Metric metric, MetricParams const& p = {},
                                              bool exclude_self = false) {
  Matrix const d = cdist(x, y, metric, p);
  std::vector<std::vector<Neighbor>> out;
  for (std::int64_t i = 0; i < x.rows; ++i) {
    auto row = ranked_row(d, i, metric == Metric::kInnerProduct, exclude_self);
    if (static_cast<std::int64_t>(row.size()) > k) row.resize(static_cast<std::size_t>(k));
    out.push_back(std::move(row));
  }
  return out;
}

/// One accepted match of the reference matcher.
struct Match {
  std::int64_t query, train;
  double distance;
};

/// OpenCV's knnMatch(k = 2) + Lowe's ratio test (+ crossCheck, + a distance limit), from the
/// float64 distances: best d1 and second best d2 per query; kept when d1 < ratio * d2 (a query
/// with one candidate has no d2 and passes), d1 <= max_distance, and with mutual when the query
/// is also the train row's best query (ties in index order).
inline std::vector<Match> match(Matrix const& x, Matrix const& y, Metric metric, double ratio,
                                bool mutual, double max_distance, MetricParams const& p = {}) {
  Matrix const d = cdist(x, y, metric, p);
  Matrix dt{y.rows, x.rows, std::vector<double>(d.v.size())};
  for (std::int64_t i = 0; i < x.rows; ++i)
    for (std::int64_t j = 0; j < y.rows; ++j) dt.v[j * x.rows + i] = d(i, j);
  std::vector<Match> out;
  for (std::int64_t i = 0; i < x.rows; ++i) {
    auto const row = ranked_row(d, i, false, false);
    if (row.empty() || std::isnan(row[0].distance)) continue;
    if (row.size() > 1 && !(row[0].distance < ratio * row[1].distance)) continue;
    if (!(row[0].distance <= max_distance)) continue;
    if (mutual && ranked_row(dt, row[0].index, false, false)[0].index != i) continue;
    out.push_back({i, row[0].index, row[0].distance});
  }
  return out;
}

}  // namespace cudist::reference
