#pragma once

#include <exception>
#include <string>

namespace mnrl::test_util {

// The message of the exception of type E that `f` throws; "" if it throws none.
template <class E = std::exception, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace mnrl::test_util
