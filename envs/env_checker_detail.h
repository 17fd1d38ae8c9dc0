#pragma once

// Internals shared by the env checker's source files (env_checker*.cpp); not public API.

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/text.h"
#include "envs/env_checker.h"

namespace mnrl::envs::env_check_detail {

namespace names = env_checks;

// Elements after the end of every observation buffer, so one written past the end is caught.
inline constexpr std::size_t kGuardFloats = 16;
// Quiet NaNs with payloads no env writes: "not written yet" and "guard".
inline constexpr std::uint32_t kUnwrittenBits = 0x7fc0dea1;
inline constexpr std::uint32_t kGuardBits = 0x7fc0a12d;
// Violations quoted in a failed check's detail; the rest are only counted.
inline constexpr std::size_t kMaxExamples = 3;
// Stream of core::derive_seed() for random actions (the env gets options.seed itself).
inline constexpr std::uint64_t kActionStream = 1;

inline std::uint32_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// Shortest round-trip text ("0.1", "inf", "nan").
std::string format_number(float value);
std::string format_number(double value);
// "terminated = true, truncated = false"
std::string format_flags(const StepResult& r);
// "1 step", "3 steps"
std::string plural(std::int64_t count, const std::string& word);

// The generator of a check's random actions.
inline core::Rng action_rng(const EnvCheckOptions& options) {
  return core::Rng(core::derive_seed(options.seed, kActionStream));
}

// What a call into the env threw, if anything.
struct Thrown {
  enum class Kind : std::uint8_t { kNothing, kInvalidArgument, kLogicError, kOther };
  Kind kind = Kind::kNothing;
  std::string type;  // "std::runtime_error"
  std::string message;

  explicit operator bool() const { return kind != Kind::kNothing; }
  bool operator==(const Thrown& o) const {
    return kind == o.kind && type == o.type && message == o.message;
  }
  // "std::runtime_error: sensor failed"
  std::string describe() const { return message.empty() ? type : type + ": " + message; }
};

// Runs `f` and returns what it threw.
template <class F>
Thrown call(F&& f) {
  try {
    f();
    return {};
  } catch (const std::invalid_argument& e) {
    return {Thrown::Kind::kInvalidArgument, core::type_name(e), e.what()};
  } catch (const std::logic_error& e) {
    return {Thrown::Kind::kLogicError, core::type_name(e), e.what()};
  } catch (const std::exception& e) {
    return {Thrown::Kind::kOther, core::type_name(e), e.what()};
  } catch (...) {
    return {Thrown::Kind::kOther, "an exception that is not a std::exception", ""};
  }
}

// A fresh env from the factory, or why there is none.
struct Built {
  std::unique_ptr<Env> env;
  std::string error;
};

// With `expected`, the env's spaces must be those of the first env the factory built.
Built build(const EnvMaker& make_env, const EnvSpec* expected = nullptr);

// One observation of `space` followed by guard elements. arm() fills it with sentinels before
// each call. Floats are armed with NaNs no env writes, so an element left unwritten is found;
// every byte value is a valid uint8, so for those only the guard and the space's bounds catch
// a bad write (the sentinel byte, 165, lies outside a [0, 1] grid but inside a [0, 255] image).
class ObservationBuffer {
 public:
  explicit ObservationBuffer(const Space& space)
      : size_(static_cast<std::size_t>(flat_size(space))), dtype_(element_dtype(space)) {
    if (dtype_ == core::Dtype::uint8) {
      bytes_.resize(size_ + kGuardFloats);
    } else {
      floats_.resize(size_ + kGuardFloats);
    }
  }

  core::TypedPtr data() {
    if (dtype_ == core::Dtype::uint8) return bytes_.data();
    return floats_.data();
  }
  core::ConstTypedPtr values() const {
    if (dtype_ == core::Dtype::uint8) return bytes_.data();
    return floats_.data();
  }
  // The observation as floats (bytes converted exactly).
  std::vector<float> copy() const {
    if (dtype_ == core::Dtype::float32) return {floats_.begin(), floats_.begin() + size_};
    return {bytes_.begin(), bytes_.begin() + size_};
  }
  std::size_t size() const { return size_; }

  void arm() {
    for (std::size_t i = 0; i < floats_.size(); ++i) {
      std::memcpy(&floats_[i], i < size_ ? &kUnwrittenBits : &kGuardBits, sizeof(float));
    }
    for (std::size_t i = 0; i < bytes_.size(); ++i) {
      bytes_[i] = i < size_ ? kUnwrittenByte : kGuardByte;
    }
  }
  bool written(std::size_t i) const {
    return dtype_ == core::Dtype::uint8 || bits_of(floats_[i]) != kUnwrittenBits;
  }
  // Index of the first guard element that was overwritten, or -1.
  std::int64_t first_overwritten_guard() const {
    for (std::size_t i = 0; i < kGuardFloats; ++i) {
      const bool overwritten = dtype_ == core::Dtype::uint8
                                   ? bytes_[size_ + i] != kGuardByte
                                   : bits_of(floats_[size_ + i]) != kGuardBits;
      if (overwritten) return static_cast<std::int64_t>(i);
    }
    return -1;
  }

 private:
  static constexpr std::uint8_t kUnwrittenByte = 0xa5;
  static constexpr std::uint8_t kGuardByte = 0x5a;

  std::size_t size_;
  core::Dtype dtype_;
  std::vector<float> floats_;        // float32 spaces
  std::vector<std::uint8_t> bytes_;  // uint8 spaces
};

// Where in a rollout a call happened: episode 1.., step 0 = reset(), 1.. = step().
struct Position {
  std::int64_t episode = 1;
  std::int64_t step = 0;

  std::string describe() const {
    return "episode " + std::to_string(episode) +
           (step == 0 ? ", reset()" : ", step " + std::to_string(step));
  }
};

// The violations of one check: a few quoted, all counted.
class Violations {
 public:
  void add(std::string text) {
    if (examples_.size() < kMaxExamples) examples_.push_back(std::move(text));
    ++count_;
  }
  std::int64_t count() const { return count_; }
  std::string summary() const {
    std::string out;
    for (std::size_t i = 0; i < examples_.size(); ++i) out += (i ? "; " : "") + examples_[i];
    if (count_ > static_cast<std::int64_t>(examples_.size())) {
      out += " (" + std::to_string(count_) + " violations in all)";
    }
    return out;
  }

 private:
  std::vector<std::string> examples_;
  std::int64_t count_ = 0;
};

inline EnvCheckResult passed(const char* check, std::string detail) {
  return {check, EnvCheckStatus::kPassed, std::move(detail)};
}
inline EnvCheckResult failed(const char* check, std::string detail) {
  return {check, EnvCheckStatus::kFailed, std::move(detail)};
}
inline EnvCheckResult skipped(const char* check, std::string detail) {
  return {check, EnvCheckStatus::kSkipped, std::move(detail)};
}

// The checks after the spec check, in report order; each builds its own envs from `make_env`
// and compares their spaces with `spec`.

// env_checker_refusals.cpp
EnvCheckResult check_step_before_reset(const EnvMaker& make_env, const EnvSpec& spec,
                                       const EnvCheckOptions& options);
// env_checker_rollout.cpp: the five results of names::kNoErrors .. names::kTimeLimit.
std::vector<EnvCheckResult> check_rollout(const EnvMaker& make_env, const EnvSpec& spec,
                                          const EnvCheckOptions& options);
EnvCheckResult check_step_after_end(const EnvMaker& make_env, const EnvSpec& spec,
                                    const EnvCheckOptions& options);
// env_checker_determinism.cpp
EnvCheckResult check_determinism(const EnvMaker& make_env, const EnvSpec& spec,
                                 const EnvCheckOptions& options);
EnvCheckResult check_saved_state(const EnvMaker& make_env, const EnvSpec& spec,
                                 const EnvCheckOptions& options);
// env_checker_refusals.cpp
EnvCheckResult check_invalid_actions(const EnvMaker& make_env, const EnvSpec& spec,
                                     const EnvCheckOptions& options);

}  // namespace mnrl::envs::env_check_detail
