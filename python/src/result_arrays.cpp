#include "result_arrays.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>

#include <nanobind/ndarray.h>

namespace nb = nanobind;

namespace cudist::python {
namespace {

nb::dlpack::dtype dlpack_dtype(DType dtype) {
  using Code = nb::dlpack::dtype_code;
  auto const code = [](Code c) { return static_cast<std::uint8_t>(c); };
  auto const bits = static_cast<std::uint8_t>(8 * size_of(dtype));
  switch (dtype) {
    case DType::kFloat16:
    case DType::kFloat32:
    case DType::kFloat64:
      return {code(Code::Float), bits, 1};
    case DType::kBFloat16:
      return {code(Code::Bfloat), bits, 1};
    case DType::kUInt8:
      return {code(Code::UInt), bits, 1};
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
      return {code(Code::Int), bits, 1};
  }
  return {};
}

template <class Framework>
nb::object wrapped(Array array) {
  auto* owned = new Array(std::move(array));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<Array*>(p); });
  std::size_t const shape[2] = {static_cast<std::size_t>(owned->rows()),
                                static_cast<std::size_t>(owned->cols())};
  Device const device = owned->device();
  nb::ndarray<Framework> view(owned->data(), 2, shape, owner, nullptr,
                              dlpack_dtype(owned->dtype()),
                              device.is_cuda() ? nb::device::cuda::value : nb::device::cpu::value,
                              device.index);
  return nb::cast(view);
}

}  // namespace

nb::object to_framework(Array array, std::string const& framework, Device home, void* stream) {
  if (array.device() != home) array = Array::copy_of(array.view(), home, stream);
  if (framework == "torch") return wrapped<nb::pytorch>(std::move(array));
  if (framework == "cupy") return wrapped<nb::cupy>(std::move(array));
  return wrapped<nb::numpy>(std::move(array));
}

}  // namespace cudist::python
