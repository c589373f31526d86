// Umbrella header: everything public in cudist.
#pragma once

#include "cudist/core/array.hpp"
#include "cudist/core/device.hpp"
#include "cudist/core/dtype.hpp"
#include "cudist/core/error.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/distance/pairwise.hpp"
