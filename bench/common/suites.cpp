// The registry of benchmark suites, in the order `cudist bench` runs them.
#include "common/suite.hpp"

namespace cudist::bench {

Suite cpu_suite();
#ifdef CUDIST_BENCH_GPU
Suite dense_suite();
Suite knn_suite();
Suite semiring_suite();
Suite sparse_suite();
#endif

std::vector<Suite> const& all_suites() {
  static std::vector<Suite> const suites = [] {
    std::vector<Suite> s;
#ifdef CUDIST_BENCH_GPU
    s.push_back(dense_suite());
    s.push_back(knn_suite());
    s.push_back(semiring_suite());
    s.push_back(sparse_suite());
#endif
    s.push_back(cpu_suite());
    return s;
  }();
  return suites;
}

#ifndef CUDIST_BENCH_GPU
Ceilings measure_ceilings() { return {}; }
#endif

}  // namespace cudist::bench
