#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/state_stream.h"

namespace mnrl::core {

// One field list for both directions of a saved state, as core/config's visit() is for options.
// A type lists its state once, in the order it is written:
//
//   template <class Fields>
//   void state_fields(Fields& fields) {
//     fields.tag("minatar_breakout");
//     fields(paddle_x_, ball_x_, bricks_);
//   }
//
// (private, with `friend struct core::StateFieldsAccess;`), and save_fields(out, *this) writes
// those fields while load_fields(in, *this) reads them back in place. A field is
//   - a type with state_fields() of its own (its fields, in turn);
//   - a component with save_state(StateWriter&) const and load_state(StateReader&);
//   - a core::Rng (its state);
//   - a std::vector or std::array of trivially copyable values (a count, then the values; a
//     vector is read back at its current size, which the configuration sets);
//   - any other trivially copyable value (its bytes);
//   - a pointer or smart pointer to one of these (what it points to);
//   - resizable(vector): a list whose length is part of the state (read back at its saved
//     length);
//   - must_match(setting, "what"): a setting the state depends on, written as a value; a load
//     that finds another value fails naming it.
// state_fields() may loop and branch, as long as what it visits depends only on settings that
// must_match or on fields visited before.
// Checks that only a load needs (positions in range, statistics finite) follow load_fields.
struct StateFieldsAccess {
  template <class T, class Fields>
  static auto visit(T& object, Fields& fields) -> decltype(object.state_fields(fields)) {
    object.state_fields(fields);
  }
};

template <class T>
struct MustMatch {
  const T& value;
  const char* what;
};
template <class T>
MustMatch<T> must_match(const T& setting, const char* what) {
  return {setting, what};
}

template <class T>
struct Resizable {
  std::vector<T>& items;
};
template <class T>
Resizable<T> resizable(std::vector<T>& items) {
  return {items};
}

class FieldWriter;

namespace state_fields_detail {

template <class T>
struct is_must_match : std::false_type {};
template <class T>
struct is_must_match<MustMatch<T>> : std::true_type {};

template <class T>
struct is_resizable : std::false_type {};
template <class T>
struct is_resizable<Resizable<T>> : std::true_type {};

template <class T>
std::string describe(const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value ? "on" : "off";
  } else {
    return std::to_string(value);
  }
}

template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<T, std::void_t<decltype(StateFieldsAccess::visit(
                         std::declval<T&>(), std::declval<FieldWriter&>()))>> : std::true_type {};

template <class T, class = void>
struct is_component : std::false_type {};
template <class T>
struct is_component<
    T, std::void_t<decltype(std::declval<const T&>().save_state(std::declval<StateWriter&>()))>>
    : std::true_type {};

template <class T>
struct is_sequence : std::false_type {};
template <class T, class A>
struct is_sequence<std::vector<T, A>> : std::true_type {};
template <class T, std::size_t N>
struct is_sequence<std::array<T, N>> : std::true_type {};

template <class T>
struct is_pointer_like : std::is_pointer<T> {};
template <class T, class D>
struct is_pointer_like<std::unique_ptr<T, D>> : std::true_type {};
template <class T>
struct is_pointer_like<std::shared_ptr<T>> : std::true_type {};

}  // namespace state_fields_detail

// Writes fields (see above) to a StateWriter.
class FieldWriter {
 public:
  explicit FieldWriter(StateWriter& out) : out_(out) {}

  void tag(std::string_view name) { out_.tag(name); }
  template <class... T>
  void operator()(const T&... fields) {
    (write(fields), ...);
  }

 private:
  template <class T>
  void write(const T& field) {
    namespace detail = state_fields_detail;
    if constexpr (detail::is_pointer_like<T>::value) {
      write(*field);
    } else if constexpr (detail::is_must_match<T>::value) {
      out_.value(field.value);
    } else if constexpr (detail::is_resizable<T>::value) {
      out_.value(static_cast<std::uint64_t>(field.items.size()));
      out_.values(field.items);
    } else if constexpr (detail::has_fields<T>::value) {
      // state_fields() serves both directions, so it is not const; a writer only reads.
      StateFieldsAccess::visit(const_cast<T&>(field), *this);
    } else if constexpr (detail::is_component<T>::value) {
      field.save_state(out_);
    } else if constexpr (std::is_same_v<T, Rng>) {
      out_.values(field.state());
    } else if constexpr (detail::is_sequence<T>::value) {
      out_.values(field);
    } else {
      out_.value(field);
    }
  }

  StateWriter& out_;
};

// Reads fields (see above) back from a StateReader, in place.
class FieldReader {
 public:
  explicit FieldReader(StateReader& in) : in_(in) {}

  void tag(std::string_view name) { in_.expect_tag(name); }
  template <class... T>
  void operator()(T&&... fields) {
    (read(fields), ...);
  }

 private:
  template <class T>
  void read(T& field) {
    namespace detail = state_fields_detail;
    if constexpr (detail::is_pointer_like<T>::value) {
      read(*field);
    } else if constexpr (detail::is_must_match<T>::value) {
      const auto saved = in_.value<std::decay_t<decltype(field.value)>>();
      if (saved != field.value) {
        in_.fail(std::string(field.what) + " is " + detail::describe(saved) +
                 " in the saved state and " + detail::describe(field.value) + " here");
      }
    } else if constexpr (detail::is_resizable<T>::value) {
      using Item = typename std::decay_t<decltype(field.items)>::value_type;
      const auto count = in_.value<std::uint64_t>();
      if (count > in_.remaining() / sizeof(Item)) {
        in_.fail("a list of " + std::to_string(count) + " items longer than the state");
      }
      field.items.resize(static_cast<std::size_t>(count));
      in_.values(field.items);
    } else if constexpr (detail::has_fields<T>::value) {
      StateFieldsAccess::visit(field, *this);
    } else if constexpr (detail::is_component<T>::value) {
      field.load_state(in_);
    } else if constexpr (std::is_same_v<T, Rng>) {
      Rng::State state;
      in_.values(state);
      field.set_state(state);
    } else if constexpr (detail::is_sequence<T>::value) {
      in_.values(field);
    } else {
      in_.value(field);
    }
  }

  StateReader& in_;
};

template <class T>
void save_fields(StateWriter& out, const T& object) {
  FieldWriter writer(out);
  StateFieldsAccess::visit(const_cast<T&>(object), writer);  // a writer only reads
}

template <class T>
void load_fields(StateReader& in, T& object) {
  FieldReader reader(in);
  StateFieldsAccess::visit(object, reader);
}

}  // namespace mnrl::core
