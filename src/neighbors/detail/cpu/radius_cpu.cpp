// CPU backend of radius: blocks of keys from the pairwise CPU backend; each row collects the
// columns whose key is within the bound (keys.hpp: radius_bound), in increasing column order.
#include <cstdint>
#include <utility>
#include <vector>

#include "neighbors/detail/backend.hpp"
#include "neighbors/detail/cpu/key_blocks.hpp"

namespace cudist::neighbors::detail::cpu {
namespace {

template <class Key>
RadiusResult select_radius(SelectProblem const& p, double r) {
  std::int64_t const m = p.m();
  std::vector<std::vector<std::pair<std::int64_t, Key>>> found(static_cast<std::size_t>(m));
  if (auto const bound = radius_bound<Key, Key>(r, p.rank)) {
    auto on_block = [&](KeyBlock<Key> const& blk) {
#pragma omp parallel for schedule(static)
      for (std::int64_t i = blk.r0; i < blk.r1; ++i) {
        for (std::int64_t j = blk.c0; j < blk.c1; ++j) {
          Key const key = blk.key(i, j);
          if (key <= *bound && !blk.excluded(i, j)) {
            found[i].emplace_back(j - blk.y_begin, distance_of<Key>(key, p.rank));
          }
        }
      }
    };
    auto no_op = [](std::int64_t, std::int64_t, std::int64_t) {};
    scan_key_blocks<Key>(p, no_op, on_block, no_op);
  }

  RadiusResult out;
  out.offsets = Array::allocate(1, m + 1, DType::kInt64, Device::cpu());
  auto* offsets = out.offsets.data_as<std::int64_t>();
  offsets[0] = 0;
  for (std::int64_t i = 0; i < m; ++i) offsets[i + 1] = offsets[i] + static_cast<std::int64_t>(found[i].size());
  out.indices = Array::allocate(1, offsets[m], DType::kInt64, Device::cpu());
  out.distances = Array::allocate(1, offsets[m], p.distance_dtype, Device::cpu());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::size_t e = 0; e < found[i].size(); ++e) {
      out.indices.data_as<std::int64_t>()[offsets[i] + e] = found[i][e].first;
      out.distances.data_as<Key>()[offsets[i] + e] = found[i][e].second;
    }
  }
  return out;
}

}  // namespace

RadiusResult radius(SelectProblem const& p, double r) {
  if (p.distance_dtype == DType::kFloat64) return select_radius<double>(p, r);
  return select_radius<float>(p, r);
}

}  // namespace cudist::neighbors::detail::cpu
