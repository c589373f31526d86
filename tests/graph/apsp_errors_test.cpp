// Every invalid argument of apsp throws InvalidArgument naming it, and a graph whose result does
// not fit the GPU is refused before any work.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "common/backend.hpp"
#include "common/expect_error.hpp"
#include "cudist/graph/apsp.hpp"

namespace cudist::test {
namespace {

Array host(std::int64_t r, std::int64_t c, DType t = DType::kFloat32) {
  return Array::allocate(r, c, t, Device::cpu());
}

TEST(ApspErrors, WeightsMustBeSquareFloatingPoint) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = backend_resources();
  expect_error([&] { apsp(res, host(3, 4)); }, "weights is (3, 4); it must be square");
  expect_error([&] { apsp(res, host(3, 3, DType::kInt32)); }, "weights is int32");
  sparse::Triplets t;
  t.rows = 3;
  t.cols = 4;
  expect_error([&] { apsp(res, t, DType::kFloat32); }, "edge list is 3 x 4");
  t.cols = 3;
  expect_error([&] { apsp(res, t, DType::kInt16); }, "dtype int16");
}

TEST(ApspErrors, OutputsMustMatchTheGraph) {
  CUDIST_REQUIRE_BACKEND();
  Resources const res = backend_resources();
  Array w = host(4, 4), d64 = host(4, 4, DType::kFloat64), d35 = host(3, 5), d = host(4, 4);
  expect_error([&] { apsp(res, w, d64.view()); }, "dist is float64 but must be float32");
  expect_error([&] { apsp(res, w, d35.view()); }, "dist is (3, 5) but must be (4, 4)");
  expect_error([&] { apsp(res, w, w.view()); }, "dist overlaps weights");
  Array nf = host(4, 4), n3 = host(3, 4, DType::kInt32);
  ApspOptions o;
  o.next = nf.view();
  expect_error([&] { apsp(res, w, d.view(), o); }, "next is float32 but must be int32");
  o.next = n3.view();
  expect_error([&] { apsp(res, w, d.view(), o); }, "next is (3, 4)");
}

TEST(ApspErrors, GraphTooLargeForTheGpuIsRefusedUpFront) {
  CUDIST_REQUIRE_BACKEND();
  if (!backend_device().is_cuda()) GTEST_SKIP() << "the device-memory check applies to the CUDA backend";
  // A 2,000,000-vertex float32 graph needs 16 TB for its distances; the weights are never read.
  float one = 0;
  ConstMatrixView const huge(&one, 2000000, 2000000, -1, DType::kFloat32, Memory::kHost);
  expect_error<OutOfMemory>([&] { apsp(backend_resources(), huge); }, "2000000-vertex graph (its 2000000 x 2000000 float32 distances) needs");
}

}  // namespace
}  // namespace cudist::test
