#include "common/dense_check.hpp"

#include <cmath>
#include <random>

namespace cudist::bench {
namespace {

bool close(double got, double want, double tolerance) {
  if (std::isnan(want)) return std::isnan(got);
  return std::fabs(got - want) <= tolerance * std::fabs(want) + tolerance;
}

std::vector<std::int64_t> sample_rows(std::int64_t m) { return {0, m / 2, m - 1}; }

std::vector<float> device_row(Array const& out, std::int64_t offset, std::int64_t count) {
  std::vector<float> host(count);
  copy(ConstMatrixView(static_cast<float const*>(out.data()) + offset, 1, count, count, DType::kFloat32,
                       Memory::kDevice),
       view(host.data(), 1, count));
  return host;
}

}  // namespace

HostInput random_input(std::int64_t rows, std::int64_t cols, DType dtype, std::uint64_t seed) {
  HostInput h{Array::allocate(rows, cols, dtype, Device::cpu()), {rows, cols, {}}};
  h.values.v.resize(static_cast<std::size_t>(rows * cols));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> real(-1.f, 1.f);
  for (std::int64_t i = 0; i < rows * cols; ++i) {
    if (dtype == DType::kUInt8) {
      auto const b = static_cast<std::uint8_t>(rng());
      h.array.data_as<std::uint8_t>()[i] = b;
      h.values.v[i] = b;
    } else if (dtype == DType::kInt8) {
      auto const b = static_cast<std::int8_t>(static_cast<std::uint8_t>(rng()));
      h.array.data_as<std::int8_t>()[i] = b;
      h.values.v[i] = b;
    } else {
      float const f = real(rng);
      h.array.data_as<float>()[i] = f;
      h.values.v[i] = f;
    }
  }
  return h;
}

bool check_rows(Array const& out, HostInput const& x, HostInput const& y, Metric metric, double tolerance) {
  std::int64_t const n = out.cols();
  for (std::int64_t i : sample_rows(out.rows())) {
    std::vector<float> const row = device_row(out, i * n, n);
    for (std::int64_t j = 0; j < n; ++j) {
      if (!close(row[j], reference::distance(metric, x.values.row(i), y.values.row(j), x.values.cols, {}), tolerance))
        return false;
    }
  }
  return true;
}

bool check_condensed_rows(Array const& out, HostInput const& x, Metric metric, double tolerance) {
  std::int64_t const n = x.values.rows;
  for (std::int64_t i : sample_rows(n - 1)) {
    std::int64_t const start = n * i - i * (i + 1) / 2;
    std::vector<float> const row = device_row(out, start, n - i - 1);
    for (std::int64_t j = i + 1; j < n; ++j) {
      if (!close(row[j - i - 1], reference::distance(metric, x.values.row(i), x.values.row(j), x.values.cols, {}),
                 tolerance))
        return false;
    }
  }
  return true;
}

}  // namespace cudist::bench
