// One small, seeded call of each family (cdist, knn, match, spmv, apsp) on the test's backend,
// with its results brought back to the host as bytes: the concurrency test compares many threads'
// results with one thread's, and the resources test repeats the calls and watches memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/data.hpp"
#include "cudist/distance/pairwise.hpp"
#include "cudist/graph/apsp.hpp"
#include "cudist/neighbors/knn.hpp"
#include "cudist/sparse/generators.hpp"
#include "cudist/sparse/spmv.hpp"

namespace cudist::test {

enum class Family { kCdist, kKnn, kMatch, kSpmv, kApsp };
inline constexpr Family kAllFamilies[] = {Family::kCdist, Family::kKnn, Family::kMatch, Family::kSpmv,
                                          Family::kApsp};

inline char const* family_name(Family f) {
  switch (f) {
    case Family::kCdist: return "cdist";
    case Family::kKnn: return "knn";
    case Family::kMatch: return "match";
    case Family::kSpmv: return "spmv";
    case Family::kApsp: return "apsp";
  }
  return "?";
}

/// The bytes of a (host or device) array, copied to the host on `stream` (which synchronizes it).
inline std::string bytes_on_host(ConstMatrixView v, void* stream) {
  Array const host = Array::copy_of(v, Device::cpu(), stream);
  return std::string(static_cast<char const*>(host.data()), host.bytes());
}

/// Inputs on the backend, made once and only read by the calls (so threads may share them).
/// Shapes are not multiples of any tile; sizes keep one call of each family around a millisecond.
struct Workloads {
  Array x = to_backend(random_reals(203, 33, DType::kFloat32, -1, 1, 11).array);
  Array y = to_backend(random_reals(129, 33, DType::kFloat32, -1, 1, 12).array);
  sparse::CsrMatrix a = sparse::CsrMatrix::copy_of(sparse::uniform_random_csr(1023, 511, 7, 13), backend_device());
  Array v = to_backend(random_reals(1, 511, DType::kFloat32, -1, 1, 14).array);
  Array graph = to_backend(random_integers(113, 113, DType::kFloat32, 1, 50, 15).array);

  /// Runs one call of `family` on `res` and returns its results' bytes.
  std::string run(Family family, Resources const& res) const {
    switch (family) {
      case Family::kCdist: {
        Array out = Array::allocate(x.rows(), y.rows(), DType::kFloat32, res.device, res.stream);
        cdist(res, x, y, out.view(), Metric::kEuclidean);
        return bytes_on_host(out, res.stream);
      }
      case Family::kKnn: {
        KnnResult const r = knn(res, x, y, 7, Metric::kCityblock);
        return bytes_on_host(r.indices, res.stream) + bytes_on_host(r.distances, res.stream);
      }
      case Family::kMatch: {
        MatchResult const r = match(res, x, y, Metric::kEuclidean);
        return bytes_on_host(r.pairs, res.stream) + bytes_on_host(r.distances, res.stream);
      }
      case Family::kSpmv: {
        Array out = Array::allocate(1, a.view().rows, DType::kFloat32, res.device, res.stream);
        sparse::spmv(res, a, v, out.view());
        return bytes_on_host(out, res.stream);
      }
      case Family::kApsp: return bytes_on_host(apsp(res, graph), res.stream);
    }
    return {};
  }
};

}  // namespace cudist::test
