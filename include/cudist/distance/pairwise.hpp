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

/// How cdist / pdist compute the dot-product metrics in float32 on a GPU (docs/accuracy.md,
/// "Opting out of exactness"). Everything else (other metrics, float64, the CPU backend, knn and
/// matching, whose answers are exact on the tensor cores anyway) is always exact.
enum class Precision : std::uint8_t {
  kExact,  ///< the direct formula in float32: the default
  /// sqeuclidean, euclidean, inner_product, cosine through a TF32 GEMM on the tensor cores (cuBLAS,
  /// where it is installed) and the norms: within a stated bound of the exact value; the entries
  /// whose bound could exceed a 16th of their value (identical and near rows) computed exactly.
  kTf32,
};

/// "exact", "tf32".
std::string_view precision_name(Precision precision);

/// Inverse of precision_name; throws InvalidArgument naming the valid values.
Precision precision_from_name(std::string_view name);

/// Optional parameters, as scipy names them, and the precision. Empty vectors mean "not given".
struct MetricParams {
  double p = 2.0;          ///< minkowski exponent, p > 0
  std::vector<double> w;   ///< per-column weights (length d), w >= 0
  std::vector<double> V;   ///< seuclidean variances (length d); default: var(vstack(x, y), ddof=1)
  std::vector<double> VI;  ///< mahalanobis inverse covariance (d x d, row-major); default: inv(cov)
  Precision precision = Precision::kExact;  ///< cdist / pdist only
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
