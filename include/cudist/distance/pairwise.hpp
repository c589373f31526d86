// Pairwise distances between the rows of two matrices (cdist) or of one (pdist), for every metric
// of scipy.spatial.distance, with scipy's names, parameters and definitions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"

namespace cudist {

enum class Metric : std::uint8_t {
  kEuclidean,
  kSqEuclidean,
  kCityblock,
  kChebyshev,
  kMinkowski,
  kCosine,
  kCorrelation,
  kCanberra,
  kBraycurtis,
  kJensenShannon,
  kSEuclidean,
  kMahalanobis,
  kHamming,
  kJaccard,
  kDice,
  kKulczynski1,
  kRogersTanimoto,
  kRussellRao,
  kSokalMichener,
  kSokalSneath,
  kYule,
  kInnerProduct,  ///< similarity: x . y (larger = closer)
  kHammingBits,   ///< rows of packed bits (uint8 bytes); distance = number of differing bits
};

/// scipy's name of a metric ("euclidean", "cityblock", ...; plus "inner_product", "hamming_bits").
std::string_view metric_name(Metric metric);

/// Inverse of metric_name; also accepts scipy's aliases ("sqeuclidean", "l2", "manhattan", ...).
/// Throws InvalidArgument listing the valid names.
Metric metric_from_name(std::string_view name);

/// All metrics, in declaration order.
std::vector<Metric> all_metrics();

/// Optional parameters, as scipy names them. Empty vectors mean "not given".
struct MetricParams {
  double p = 2.0;          ///< minkowski exponent, p > 0
  std::vector<double> w;   ///< per-column weights (length d), w >= 0
  std::vector<double> V;   ///< seuclidean variances (length d); default: var(vstack(x, y), ddof=1)
  std::vector<double> VI;  ///< mahalanobis inverse covariance (d x d, row-major); default: inv(cov)
};

/// dtype of the output for inputs of `input`: float64 for float64 inputs, float32 otherwise.
DType distance_output_dtype(DType input);

/// out(i, j) = metric(x.row(i), y.row(j)). x: (m, d), y: (n, d), out: (m, n) with any row stride.
/// x, y and out may be host or device memory; host inputs with a CUDA device are copied in.
/// @note Asynchronous on res.stream when every view is device memory; otherwise synchronizes.
/// @throw InvalidArgument naming the argument on a bad shape, dtype, parameter or layout.
void cdist(Resources const& res, ConstMatrixView x, ConstMatrixView y, MatrixView out,
           Metric metric, MetricParams const& params = {});

/// As above, into a new (m, n) array on res.device.
Array cdist(Resources const& res, ConstMatrixView x, ConstMatrixView y, Metric metric,
            MetricParams const& params = {});

/// Condensed distances of the rows of x, in scipy's order: for i < j, entry
/// n*i - i*(i+1)/2 + (j - i - 1). out: a (1, n*(n-1)/2) view.
void pdist(Resources const& res, ConstMatrixView x, MatrixView out, Metric metric,
           MetricParams const& params = {});
Array pdist(Resources const& res, ConstMatrixView x, Metric metric, MetricParams const& params = {});

}  // namespace cudist
