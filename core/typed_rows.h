#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/state_stream.h"
#include "core/typed_ptr.h"

namespace mnrl::core {

// `rows` rows of `row_size` elements of one dtype, stored as that dtype (a uint8 row takes a
// quarter of a float32 one): observation batches and replay storage. Rows are read and written
// through typed pointers; only row_as_floats() converts.
class TypedRows {
 public:
  TypedRows() = default;
  TypedRows(Dtype dtype, std::size_t rows, std::size_t row_size)
      : dtype_(dtype), row_size_(row_size) {
    if (dtype == Dtype::uint8) {
      bytes_.assign(rows * row_size, 0);
    } else {
      floats_.assign(rows * row_size, 0.0f);
    }
  }

  Dtype dtype() const { return dtype_; }
  std::size_t row_size() const { return row_size_; }
  TypedPtr row(std::size_t i) { return data() + i * row_size_; }
  ConstTypedPtr row(std::size_t i) const { return data() + i * row_size_; }
  TypedPtr data() {
    if (dtype_ == Dtype::uint8) return bytes_.data();
    return floats_.data();
  }
  ConstTypedPtr data() const {
    if (dtype_ == Dtype::uint8) return bytes_.data();
    return floats_.data();
  }
  // Copies a row of the same dtype into row `to`.
  void copy_row(std::size_t to, ConstTypedPtr source_row) {
    copy_elements(source_row, row_size_, row(to));
  }

  // Row i as floats into `out` (row_size() of them; bytes times `byte_scale`, as as_floats()).
  void row_as_floats(std::size_t i, float* out, float byte_scale) const {
    if (dtype_ == Dtype::float32) {
      std::memcpy(out, &floats_[i * row_size_], row_size_ * sizeof(float));
    } else {
      const std::uint8_t* bytes = &bytes_[i * row_size_];
      for (std::size_t k = 0; k < row_size_; ++k)
        out[k] = static_cast<float>(bytes[k]) * byte_scale;
    }
  }

  // The first `count` rows, in the stored dtype (the caller's header says which; a reader of
  // the other dtype would misread them). load_rows() reads them back into rows of the same
  // dtype and row size.
  // The first `count` rows as a field of a saved state (core/state_fields.h).
  struct FirstRows {
    TypedRows& rows;
    std::size_t count;
    void save_state(StateWriter& out) const { rows.save_rows(out, count); }
    void load_state(StateReader& in) { rows.load_rows(in, count); }
  };
  FirstRows first_rows(std::size_t count) { return {*this, count}; }

  void save_rows(StateWriter& out, std::size_t count) const {
    if (dtype_ == Dtype::uint8) {
      out.values(bytes_.data(), count * row_size_);
    } else {
      out.values(floats_.data(), count * row_size_);
    }
  }
  void load_rows(StateReader& in, std::size_t count) {
    if (dtype_ == Dtype::uint8) {
      in.values(bytes_.data(), count * row_size_);
    } else {
      in.values(floats_.data(), count * row_size_);
    }
  }

 private:
  Dtype dtype_ = Dtype::float32;
  std::size_t row_size_ = 0;
  std::vector<float> floats_;        // when float32
  std::vector<std::uint8_t> bytes_;  // when uint8
};

}  // namespace mnrl::core
