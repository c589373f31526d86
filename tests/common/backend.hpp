// Which backend this test executable exercises (each test source is built once per backend), and
// the guard that skips CUDA tests, with a clear message, on a machine without a GPU.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string_view>
#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/core/device.hpp"
#include "cudist/core/resources.hpp"

namespace cudist::test {

inline Device backend_device() {
  return std::string_view(CUDIST_TEST_BACKEND) == "cuda" ? Device::cuda(0) : Device::cpu();
}

inline Resources backend_resources() { return Resources(backend_device()); }

/// Every GPU present as one device set ("cuda:all": a real split where there are several) for the
/// CUDA backend; the CPU, which is no set, for the CPU backend.
inline Resources all_backend_devices() {
  return backend_device().is_cuda() ? Resources(DeviceSet::parse("cuda:all")) : backend_resources();
}

/// Copies a host array to the backend's memory (no copy for the CPU backend).
inline Array to_backend(Array const& host) {
  return backend_device().is_cuda() ? Array::copy_of(host.view(), backend_device()) : host;
}

/// Copies an array (host or device) to a new host array.
inline Array to_host(ConstMatrixView v) { return Array::copy_of(v, Device::cpu()); }

/// The dense host matrix `host` one byte past the start of `storage`, as dask.distributed may hand
/// a NumPy block over: rows whose elements are off their alignment.
inline ConstMatrixView one_byte_off(Array const& host, std::vector<unsigned char>& storage) {
  storage.assign(host.bytes() + 1, 0);
  std::memcpy(storage.data() + 1, host.data(), host.bytes());
  return {storage.data() + 1, host.rows(), host.cols(), host.cols(), host.dtype(), Memory::kHost};
}

inline std::string data_path(std::string_view rel) {
  return std::string(CUDIST_TEST_DATA_DIR) + "/" + std::string(rel);
}

}  // namespace cudist::test

/// First statement of every test that needs the backend's device.
#define CUDIST_REQUIRE_BACKEND()                                                          \
  do {                                                                                    \
    if (::cudist::test::backend_device().is_cuda() && ::cudist::cuda_device_count() == 0) \
      GTEST_SKIP() << "no CUDA GPU on this machine: CUDA backend test skipped";           \
  } while (0)
