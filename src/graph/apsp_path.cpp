// Reading a shortest path out of apsp's next-hop matrix: all the hops towards `to` are column
// `to`, so one strided copy brings them to the host whatever memory the matrix is in.
#include <cstdint>
#include <vector>

#include "core/detail/expects.hpp"
#include "core/detail/validate_view.hpp"
#include "cudist/graph/apsp.hpp"

namespace cudist {

std::vector<std::int64_t> apsp_path(ConstMatrixView next, std::int64_t from, std::int64_t to) {
  char const* who = "apsp_path";
  detail::expect_valid_view(who, "next", next);
  detail::expect_dtype(who, "next", next, DType::kInt32);
  std::int64_t const n = next.rows;
  detail::expect_shape(who, "next", next, n, n);
  CUDIST_EXPECTS(from >= 0 && from < n, who << ": from = " << from << " is not a vertex (0 .. " << n - 1 << ")");
  CUDIST_EXPECTS(to >= 0 && to < n, who << ": to = " << to << " is not a vertex (0 .. " << n - 1 << ")");
  ConstMatrixView const column(static_cast<std::int32_t const*>(next.data) + to, n, 1, next.stride,
                               DType::kInt32, next.memory);
  Array const hops = Array::copy_of(column, Device::cpu());
  std::int32_t const* towards = hops.data_as<std::int32_t>();
  if (towards[from] < 0) return {};
  std::vector<std::int64_t> path{from};
  for (std::int64_t v = from; v != to;) {
    v = towards[v];
    CUDIST_EXPECTS(v >= 0 && v < n && static_cast<std::int64_t>(path.size()) <= n,
                   who << ": next does not lead from " << from << " to " << to
                       << " (it is not a next-hop matrix of apsp, or the graph has zero-length cycles)");
    path.push_back(v);
  }
  return path;
}

}  // namespace cudist
