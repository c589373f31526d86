// The first thing to read: distances between two small point sets with cudist, on the GPU when
// there is one (else the CPU), from host memory, into a buffer the caller owns.
//
//   build/examples/00_pairwise
#include <cstdio>
#include <vector>

#include <cudist/cudist.hpp>

int main() {
  // Four 3-D points and two queries, row-major.
  std::vector<float> const points = {0, 0, 0, 1, 0, 0, 0, 2, 0, 1, 1, 1};
  std::vector<float> const queries = {0, 0, 0, 1, 1, 0};
  std::vector<float> dist(2 * 4);

  cudist::Resources const res;  // the first GPU if present, else the CPU
  cudist::cdist(res, cudist::view(queries.data(), 2, 3), cudist::view(points.data(), 4, 3),
                cudist::view(dist.data(), 2, 4), cudist::Metric::kEuclidean);  // host output: synchronizes

  std::printf("euclidean distances on %s:\n", res.device.str().c_str());
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) std::printf(" %8.4f", dist[i * 4 + j]);
    std::printf("\n");
  }

  // Any scipy metric by name, with scipy's parameters.
  cudist::MetricParams p;
  p.p = 3;
  cudist::Array const mink = cudist::cdist(res, cudist::view(queries.data(), 2, 3),
                                           cudist::view(points.data(), 4, 3),
                                           cudist::metric_from_name("minkowski"), p);
  std::vector<float> host(8);
  cudist::copy(mink.view(), cudist::view(host.data(), 2, 4));
  std::printf("minkowski p=3, first row: %.4f %.4f %.4f %.4f\n", host[0], host[1], host[2], host[3]);
  return 0;
}
