// The check every error test makes: the call throws ErrorT and its message mentions a fragment.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "cudist/core/error.hpp"

namespace cudist::test {

template <class ErrorT = InvalidArgument>
void expect_error(std::function<void()> const& call, std::string const& mentions) {
  try {
    call();
    ADD_FAILURE() << "expected an error mentioning '" << mentions << "'";
  } catch (ErrorT const& e) {
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << mentions << "'";
  }
}

}  // namespace cudist::test
