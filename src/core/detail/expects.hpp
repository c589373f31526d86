// Internal checking macros. CUDIST_EXPECTS reports user mistakes (InvalidArgument by default);
// internal invariants use assert. Messages are built with operator<<, e.g.
//   CUDIST_EXPECTS(x.cols == y.cols, "cdist: x has " << x.cols << " columns but y has " << y.cols);
#pragma once

#include <sstream>

#include "cudist/core/error.hpp"

#define CUDIST_THROW(ExceptionT, message_stream)    \
  do {                                              \
    std::ostringstream cudist_msg_;                 \
    cudist_msg_ << message_stream;                  \
    throw ExceptionT(cudist_msg_.str());            \
  } while (0)

#define CUDIST_EXPECTS(cond, message_stream)                                       \
  do {                                                                             \
    if (!(cond)) CUDIST_THROW(::cudist::InvalidArgument, message_stream);          \
  } while (0)
