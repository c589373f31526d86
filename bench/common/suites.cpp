// The registry of benchmark suites, in the order `cudist bench` runs them.
#include "common/suite.hpp"

namespace cudist::bench {

std::vector<Suite> const& all_suites() {
  static std::vector<Suite> const suites = {
  };
  return suites;
}

#ifndef CUDIST_BENCH_GPU
Ceilings measure_ceilings() { return {}; }
#endif

}  // namespace cudist::bench
