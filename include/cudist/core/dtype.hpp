// Element types cudist understands, as a runtime tag: public functions take type-erased views so
// that one overload serves every dtype (dispatch turns the tag into a template argument).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cudist {

enum class DType : std::uint8_t {
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kUInt8,
  kInt8,  ///< signed bytes: quantised embeddings
  kInt16,
  kInt32,
  kInt64,
};

/// Size of one element in bytes.
std::size_t size_of(DType dtype);

/// Short lower-case name ("float32", "uint8", ...), as NumPy spells it.
std::string_view dtype_name(DType dtype);

/// Inverse of dtype_name; throws InvalidArgument for an unknown name.
DType dtype_from_name(std::string_view name);

bool is_floating(DType dtype);

}  // namespace cudist
