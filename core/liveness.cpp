#include "core/liveness.h"

#include <utility>

namespace mnrl::core {
namespace {

std::function<void()>& reporter() {
  static std::function<void()> function;
  return function;
}

std::function<void()>& waiting() {
  static std::function<void()> function;
  return function;
}

}  // namespace

void report_alive() {
  if (reporter()) reporter()();
}

void set_alive_reporter(std::function<void()> function) { reporter() = std::move(function); }

const std::function<void()>& alive_reporter() { return reporter(); }

void report_waiting() {
  if (waiting()) waiting()();
}

void set_waiting_reporter(std::function<void()> function) { waiting() = std::move(function); }

const std::function<void()>& waiting_reporter() { return waiting(); }

}  // namespace mnrl::core
