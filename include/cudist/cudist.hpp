// Umbrella header: everything public in cudist.
#pragma once

#include "cudist/core/array.hpp"
#include "cudist/core/device.hpp"
#include "cudist/core/dtype.hpp"
#include "cudist/core/error.hpp"
#include "cudist/core/interrupt.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/distance/pairwise.hpp"
#include "cudist/neighbors/knn.hpp"
#include "cudist/graph/apsp.hpp"
#include "cudist/semiring/semiring.hpp"
#include "cudist/sparse/csr.hpp"
#include "cudist/sparse/spmv.hpp"
#include "cudist/sparse/triplets.hpp"
#include "cudist/sparse/generators.hpp"
#include "cudist/io/matrix_market.hpp"
