// Arguments every distance-based binding shares (cdist, pdist, knn, match, radius): scipy's
// metric parameters as the Python wrappers hand them over, and the dtype rule for distance inputs.
#pragma once

#include <optional>

#include <nanobind/ndarray.h>

#include "cudist/core/matrix_view.hpp"
#include "cudist/distance/pairwise.hpp"

namespace cudist::python {

/// w, V and VI as the Python wrappers hand them over: float64 NumPy arrays (or None).
using ParamArray = nanobind::ndarray<double const, nanobind::c_contig, nanobind::device::cpu>;

/// MetricParams from p and the optional arrays. @throw ValueError when w or V is not 1-D or VI is
/// not a square matrix (the library checks their lengths against the data).
MetricParams metric_params(double p, std::optional<ParamArray> const& w,
                           std::optional<ParamArray> const& V, std::optional<ParamArray> const& VI);

/// Distances are defined for floating-point and byte (uint8, bool) rows of one dtype. Anything
/// else is a TypeError in Python's terms (the C++ library calls it an invalid argument).
void expect_distance_dtypes(char const* who, ConstMatrixView x, ConstMatrixView y,
                            char const* x_name, char const* y_name);

}  // namespace cudist::python
