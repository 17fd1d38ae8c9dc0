#include "core/liveness.h"

#include <utility>

namespace mnrl::core {
namespace {

std::function<void()>& reporter() {
  static std::function<void()> function;
  return function;
}

}  // namespace

void report_alive() {
  if (reporter()) reporter()();
}

void set_alive_reporter(std::function<void()> function) { reporter() = std::move(function); }

const std::function<void()>& alive_reporter() { return reporter(); }

}  // namespace mnrl::core
