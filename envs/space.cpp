#include "envs/space.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/scalar_text.h"

namespace mnrl::envs {
namespace {

using core::format_float;

// Product of the dimensions; validate() has checked that it fits in an int64.
std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (const std::int64_t d : shape) count *= d;
  return count;
}

std::string format_shape(const std::vector<std::int64_t>& shape) {
  std::string out;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out;
}

// "[-4.8, -inf, -0.41887903, -inf]"; a single value when all bounds are equal; long lists are
// cut after a few entries.
std::string format_bounds(const std::vector<float>& values) {
  constexpr std::size_t kMaxShown = 8;
  // One number when every bound is the same (as Gymnasium prints Box(-1.0, 1.0, (3,))).
  if (!values.empty() && std::equal(values.begin() + 1, values.end(), values.begin())) {
    return format_float(values.front());
  }
  std::string out = "[";
  for (std::size_t i = 0; i < values.size() && i < kMaxShown; ++i) {
    if (i > 0) out += ", ";
    out += format_float(values[i]);
  }
  if (values.size() > kMaxShown) out += ", ... (" + std::to_string(values.size()) + " values)";
  return out + "]";
}

bool is_byte_value(float v) { return v >= 0 && v <= 255 && std::floor(v) == v; }

// Returns "" if the space is well formed, else what is wrong with it.
std::string space_problem(const Space& space) {
  if (const auto* discrete = std::get_if<Discrete>(&space)) {
    if (discrete->n < 1) return "Discrete(" + std::to_string(discrete->n) + ") needs n >= 1";
    return {};
  }
  const auto& box = std::get<Box>(space);
  if (box.shape.empty()) return "Box has an empty shape";
  std::int64_t count = 1;
  for (const std::int64_t d : box.shape) {
    if (d < 1) return "Box(" + format_shape(box.shape) + ") has a dimension < 1";
    if (count > std::numeric_limits<std::int64_t>::max() / d) {
      return "Box(" + format_shape(box.shape) + ") has too many elements";
    }
    count *= d;
  }
  const auto expected = static_cast<std::size_t>(count);
  if (box.low.size() != expected || box.high.size() != expected) {
    return "Box(" + format_shape(box.shape) + ") needs " + std::to_string(expected) +
           " low and high bounds, got " + std::to_string(box.low.size()) + " and " +
           std::to_string(box.high.size());
  }
  const bool bytes = box.dtype == Dtype::uint8;
  for (std::size_t i = 0; i < expected; ++i) {
    if (std::isnan(box.low[i]) || std::isnan(box.high[i])) {
      return "Box bound " + std::to_string(i) + " is NaN";
    }
    if (bytes && !(is_byte_value(box.low[i]) && is_byte_value(box.high[i]))) {
      return "uint8 Box bound " + std::to_string(i) + " is [" + format_float(box.low[i]) + ", " +
             format_float(box.high[i]) + "], needs integers in [0, 255]";
    }
    if (box.low[i] > box.high[i]) {
      return "Box bound " + std::to_string(i) + " has low " + format_float(box.low[i]) +
             " > high " + format_float(box.high[i]);
    }
  }
  return {};
}

}  // namespace

std::int64_t flat_size(const Space& space) {
  if (const auto* box = std::get_if<Box>(&space)) return element_count(box->shape);
  return 1;
}

Dtype element_dtype(const Space& space) {
  if (const auto* box = std::get_if<Box>(&space)) return box->dtype;
  return Dtype::float32;
}

float byte_scale(const Space& space) {
  const auto* box = std::get_if<Box>(&space);
  if (!box || box->dtype != Dtype::uint8) return 1.0f;
  const auto is = [](float value) { return [value](float v) { return v == value; }; };
  const bool image = std::all_of(box->low.begin(), box->low.end(), is(0.0f)) &&
                     std::all_of(box->high.begin(), box->high.end(), is(255.0f));
  return image ? 1.0f / 255.0f : 1.0f;
}

bool is_discrete(const Space& space) { return std::holds_alternative<Discrete>(space); }

Box symmetric_box(const std::vector<float>& high) {
  Box box{{static_cast<std::int64_t>(high.size())}, high, high};
  for (float& low : box.low) low = -low;
  return box;
}

const Box& expect_box(const Space& space, const std::string& what) {
  if (const auto* box = std::get_if<Box>(&space)) return *box;
  throw std::invalid_argument(what + " must be a Box, not " + describe(space));
}

std::string describe(const Space& space) {
  if (const auto* discrete = std::get_if<Discrete>(&space)) {
    return "Discrete(" + std::to_string(discrete->n) + ")";
  }
  const auto& box = std::get<Box>(space);
  const std::string dtype = box.dtype == Dtype::uint8 ? " uint8" : "";
  return "Box(" + format_shape(box.shape) + ")" + dtype + " low=" + format_bounds(box.low) +
         " high=" + format_bounds(box.high);
}

void EnvSpec::validate() const {
  const std::string name = id.empty() ? std::string("<empty id>") : "'" + id + "'";
  const auto fail = [&](const std::string& problem) {
    throw std::invalid_argument("invalid spec for environment " + name + ": " + problem);
  };
  if (id.empty()) fail("the id is empty");
  if (auto problem = space_problem(observation_space); !problem.empty()) {
    fail("observation space: " + problem);
  }
  if (auto problem = space_problem(action_space); !problem.empty()) {
    fail("action space: " + problem);
  }
  if (element_dtype(action_space) != Dtype::float32) {
    fail("action space: a uint8 Box; actions are float32 or Discrete");
  }
  if (max_episode_steps < 0) {
    fail("max_episode_steps is " + std::to_string(max_episode_steps) + ", must be >= 0");
  }
  if (reward_threshold && !std::isfinite(*reward_threshold)) {
    fail("reward_threshold is not finite");
  }
}

OutsideSpace find_outside(const Space& space, core::ConstTypedPtr values,
                          const std::function<bool(std::size_t)>& skip) {
  OutsideSpace outside;
  const auto n = static_cast<std::size_t>(flat_size(space));
  const auto* discrete = std::get_if<Discrete>(&space);
  const bool bytes = values.dtype() == Dtype::uint8;
  for (std::size_t i = 0; i < n; ++i) {
    if (skip && skip(i)) continue;
    const float v = bytes ? static_cast<float>(values.bytes()[i]) : values.floats()[i];
    std::string problem;
    if (discrete) {
      if (!(v >= 0 && v < static_cast<float>(discrete->n) && std::floor(v) == v)) {
        problem = "observation = " + format_float(v) + " is not an integer in [0, " +
                  std::to_string(discrete->n) + ")";
      }
    } else {
      const auto& box = std::get<Box>(space);
      if (std::isnan(v)) {
        problem = "observation[" + std::to_string(i) + "] is NaN";
      } else if (v < box.low[i] || v > box.high[i]) {
        problem = "observation[" + std::to_string(i) + "] = " + format_float(v) + " is outside [" +
                  format_float(box.low[i]) + ", " + format_float(box.high[i]) + "]";
      }
    }
    if (!problem.empty() && outside.count++ == 0) outside.first = std::move(problem);
  }
  return outside;
}

}  // namespace mnrl::envs
