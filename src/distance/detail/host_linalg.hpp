// Small dense linear algebra on the host, in float64, for metric parameters: column variances
// (seuclidean's default V), the covariance (mahalanobis's default VI), inversion and Cholesky.
// d x d at most: cheap next to any distance computation it serves.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cudist/core/matrix_view.hpp"

namespace cudist::detail {

/// Rows of x then y (host memory, any dtype), as float64, row-major.
std::vector<double> stacked_rows_f64(ConstMatrixView x, ConstMatrixView y);

/// Per-column variance with ddof = 1 of an (r, d) row-major matrix.
std::vector<double> column_variance(std::vector<double> const& rows, std::int64_t d);

/// Covariance (ddof = 1) of the columns of an (r, d) matrix: (d, d) row-major.
std::vector<double> column_covariance(std::vector<double> const& rows, std::int64_t d);

/// Inverse of a (d, d) matrix by Gauss-Jordan with partial pivoting; nullopt when singular.
std::optional<std::vector<double>> inverse(std::vector<double> a, std::int64_t d);

/// Lower-triangular L with a = L L^T; nullopt unless a is symmetric positive definite.
std::optional<std::vector<double>> cholesky_lower(std::vector<double> const& a, std::int64_t d);

}  // namespace cudist::detail
