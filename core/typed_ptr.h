#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace mnrl::core {

// The element types observations come in: float32 (vectors, the default) or uint8 (images and
// grids, 4x smaller wherever they are stored).
enum class Dtype : std::uint8_t { float32 = 0, uint8 = 1 };

inline std::size_t element_bytes(Dtype dtype) { return dtype == Dtype::uint8 ? 1 : 4; }
inline const char* dtype_name(Dtype dtype) { return dtype == Dtype::uint8 ? "uint8" : "float32"; }

// A pointer to elements together with their dtype: what crosses the env, vector-env and agent
// interfaces, so that uint8 observations stay bytes until a batch reaches a network. Implicit
// from float* and std::uint8_t*, so code that passes plain floats reads as before.
template <class Float, class Byte>
class BasicTypedPtr {
 public:
  BasicTypedPtr() = default;                                               // null float32
  BasicTypedPtr(Float* floats) : data_(floats), dtype_(Dtype::float32) {}  // NOLINT(implicit)
  BasicTypedPtr(Byte* bytes) : data_(bytes), dtype_(Dtype::uint8) {}       // NOLINT(implicit)
  // A TypedPtr converts to a ConstTypedPtr.
  template <class F, class B, class = std::enable_if_t<std::is_convertible_v<F*, Float*>>>
  BasicTypedPtr(const BasicTypedPtr<F, B>& other)  // NOLINT(implicit)
      : data_(other.data()), dtype_(other.dtype()) {}

  Dtype dtype() const { return dtype_; }
  auto* data() const { return data_; }
  // The elements as their type; std::logic_error for the other dtype (a programming error: the
  // space said which it is).
  Float* floats() const { return static_cast<Float*>(checked(Dtype::float32)); }
  Byte* bytes() const { return static_cast<Byte*>(checked(Dtype::uint8)); }
  // The pointer `count` elements further on (row `count / row size` of a batch).
  BasicTypedPtr operator+(std::size_t count) const {
    return dtype_ == Dtype::uint8 ? BasicTypedPtr(static_cast<Byte*>(data_) + count)
                                  : BasicTypedPtr(static_cast<Float*>(data_) + count);
  }

 private:
  using Void = std::conditional_t<std::is_const_v<Float>, const void, void>;
  Void* checked(Dtype wanted) const {
    if (dtype_ != wanted) {
      throw std::logic_error(std::string("observation elements are ") + dtype_name(dtype_) +
                             ", not " + dtype_name(wanted));
    }
    return data_;
  }

  Void* data_ = nullptr;
  Dtype dtype_ = Dtype::float32;
};

using TypedPtr = BasicTypedPtr<float, std::uint8_t>;
using ConstTypedPtr = BasicTypedPtr<const float, const std::uint8_t>;

// `count` elements at `from` as floats: the elements themselves when they are float32, else
// converted into `scratch` (resized to `count`), each byte times `byte_scale` (1/255 turns an
// image's bytes into [0, 1]).
inline const float* as_floats(ConstTypedPtr from, std::size_t count, std::vector<float>& scratch,
                              float byte_scale) {
  if (from.dtype() == Dtype::float32) return from.floats();
  scratch.resize(count);
  const std::uint8_t* bytes = from.bytes();
  for (std::size_t i = 0; i < count; ++i) scratch[i] = static_cast<float>(bytes[i]) * byte_scale;
  return scratch.data();
}

// Copies `count` elements from `from` to `to`; std::logic_error if their dtypes differ.
inline void copy_elements(ConstTypedPtr from, std::size_t count, TypedPtr to) {
  if (from.dtype() == Dtype::uint8) {
    std::memcpy(to.bytes(), from.bytes(), count);
  } else {
    std::memcpy(to.floats(), from.floats(), count * sizeof(float));
  }
}

}  // namespace mnrl::core
