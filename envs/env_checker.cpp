#include "envs/env_checker.h"

#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <typeinfo>
#include <utility>

#include "core/rng.h"

namespace mnrl::envs {
namespace {

namespace names = env_checks;

// Larger spaces are refused rather than allocated (an Atari frame stack is ~30k floats).
constexpr std::int64_t kMaxFlatSize = std::int64_t{1} << 24;
// Floats after the end of every observation buffer, so one written past the end is caught.
constexpr std::size_t kGuardFloats = 16;
// Quiet NaNs with payloads no env writes: "not written yet" and "guard".
constexpr std::uint32_t kUnwrittenBits = 0x7fc0dea1;
constexpr std::uint32_t kGuardBits = 0x7fc0a12d;
// Violations quoted in a failed check's detail; the rest are only counted.
constexpr std::size_t kMaxExamples = 3;
// Steps the "step after the episode ended" check may add to reach the time limit.
constexpr std::int64_t kMaxStepsToAnEnd = 1'000'000;
// Stream of core::derive_seed() for the action sampler (the env gets options.seed itself).
constexpr std::uint64_t kActionStream = 1;

std::uint32_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::string format_number(float value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string format_number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string format_flags(const StepResult& r) {
  return std::string("terminated = ") + (r.terminated ? "true" : "false") +
         ", truncated = " + (r.truncated ? "true" : "false");
}

std::string plural(std::int64_t count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

// ---- Exceptions ----------------------------------------------------------------------------

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

std::string type_name(const std::exception& e) {
  const char* mangled = typeid(e).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(mangled);
}

template <class F>
Thrown call(F&& f) {
  try {
    f();
    return {};
  } catch (const std::invalid_argument& e) {
    return {Thrown::Kind::kInvalidArgument, type_name(e), e.what()};
  } catch (const std::logic_error& e) {
    return {Thrown::Kind::kLogicError, type_name(e), e.what()};
  } catch (const std::exception& e) {
    return {Thrown::Kind::kOther, type_name(e), e.what()};
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
Built build(const EnvFactory& make_env, const EnvSpec* expected = nullptr) {
  Built built;
  const Thrown thrown = call([&] {
    built.env = make_env();
    if (!built.env || !expected) return;
    const EnvSpec& spec = built.env->spec();
    for (const auto& [what, space, first] :
         {std::tuple{"observation", &spec.observation_space, &expected->observation_space},
          std::tuple{"action", &spec.action_space, &expected->action_space}}) {
      if (*space != *first) {
        built.error = std::string("another env from the same factory has the ") + what + " space " +
                      describe(*space) + " instead of " + describe(*first);
        built.env.reset();
        return;
      }
    }
  });
  if (thrown) {
    built.error = "building the env threw " + thrown.describe();
    built.env.reset();
  } else if (!built.env && built.error.empty()) {
    built.error = "the factory returned no env (null)";
  }
  return built;
}

// ---- Observation buffers and actions -------------------------------------------------------

// `size` floats followed by guard floats. arm() fills it with sentinels before each call.
class ObservationBuffer {
 public:
  explicit ObservationBuffer(std::int64_t size)
      : size_(static_cast<std::size_t>(size)), data_(size_ + kGuardFloats) {}

  float* data() { return data_.data(); }
  const float* values() const { return data_.data(); }
  std::size_t size() const { return size_; }

  void arm() {
    for (std::size_t i = 0; i < data_.size(); ++i) {
      std::memcpy(&data_[i], i < size_ ? &kUnwrittenBits : &kGuardBits, sizeof(float));
    }
  }
  bool written(std::size_t i) const { return bits_of(data_[i]) != kUnwrittenBits; }
  // Index of the first guard float that was overwritten, or -1.
  std::int64_t first_overwritten_guard() const {
    for (std::size_t i = 0; i < kGuardFloats; ++i) {
      if (bits_of(data_[size_ + i]) != kGuardBits) return static_cast<std::int64_t>(i);
    }
    return -1;
  }

 private:
  std::size_t size_;
  std::vector<float> data_;
};

// Uniformly random valid actions. A Box dimension with an infinite bound is sampled within 1 of
// its finite bound, or in [-1, 1] when both are infinite.
class ActionSampler {
 public:
  ActionSampler(const Space& space, std::uint64_t seed)
      : space_(space), rng_(core::derive_seed(seed, kActionStream)) {
    values_.resize(is_discrete(space) ? 0 : static_cast<std::size_t>(flat_size(space)));
  }

  // Valid until the next call.
  ActionRef sample() {
    if (const auto* discrete = std::get_if<Discrete>(&space_)) {
      return {static_cast<std::int64_t>(rng_.below(static_cast<std::uint64_t>(discrete->n))),
              nullptr, 0};
    }
    const auto& box = std::get<Box>(space_);
    for (std::size_t i = 0; i < values_.size(); ++i) {
      const double low = box.low[i];
      const double high = box.high[i];
      double value;
      if (std::isfinite(low) && std::isfinite(high)) {
        value = rng_.uniform(low, high);
      } else if (std::isfinite(low)) {
        value = low + rng_.uniform();
      } else if (std::isfinite(high)) {
        value = high - rng_.uniform();
      } else {
        value = rng_.uniform(-1.0, 1.0);
      }
      values_[i] = std::clamp(static_cast<float>(value), box.low[i], box.high[i]);
    }
    return {0, values_.data(), static_cast<std::int64_t>(values_.size())};
  }

 private:
  Space space_;
  core::Rng rng_;
  std::vector<float> values_;
};

// A copy of an action, to replay it.
struct StoredAction {
  std::int64_t index = 0;
  std::vector<float> values;

  explicit StoredAction(const ActionRef& a)
      : index(a.index), values(a.values, a.values + (a.values ? a.size : 0)) {}
  ActionRef ref() const {
    return {index, values.empty() ? nullptr : values.data(),
            static_cast<std::int64_t>(values.size())};
  }
};

// ---- Reporting -----------------------------------------------------------------------------

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

EnvCheckResult passed(const char* check, std::string detail) {
  return {check, EnvCheckStatus::kPassed, std::move(detail)};
}
EnvCheckResult failed(const char* check, std::string detail) {
  return {check, EnvCheckStatus::kFailed, std::move(detail)};
}
EnvCheckResult skipped(const char* check, std::string detail) {
  return {check, EnvCheckStatus::kSkipped, std::move(detail)};
}

// ---- Checks --------------------------------------------------------------------------------

// Builds one env and checks its spec; the spec, when valid, is what the other checks use.
EnvCheckResult check_spec(const EnvFactory& make_env, std::optional<EnvSpec>& spec_out,
                          std::string& env_id) {
  const Built built = build(make_env);
  if (!built.env) return failed(names::kSpec, built.error);
  EnvSpec spec;
  if (const Thrown t = call([&] { spec = built.env->spec(); })) {
    return failed(names::kSpec, "spec() threw " + t.describe());
  }
  if (!spec.id.empty()) env_id = spec.id;
  if (const Thrown t = call([&] { spec.validate(); })) return failed(names::kSpec, t.message);
  for (const Space* space : {&spec.observation_space, &spec.action_space}) {
    if (flat_size(*space) > kMaxFlatSize) {
      return failed(names::kSpec,
                    std::string(space == &spec.action_space ? "action" : "observation") +
                        " space " + describe(*space) + " has " + std::to_string(flat_size(*space)) +
                        " floats; the checker supports at most " + std::to_string(kMaxFlatSize));
    }
  }
  spec_out = spec;
  std::string detail =
      "observation " + describe(spec.observation_space) + ", action " + describe(spec.action_space);
  if (spec.max_episode_steps > 0) {
    detail += ", time limit " + std::to_string(spec.max_episode_steps);
  }
  return passed(names::kSpec, detail);
}

EnvCheckResult check_step_before_reset(const EnvFactory& make_env, const EnvSpec& spec,
                                       const EnvCheckOptions& options) {
  const Built built = build(make_env, &spec);
  if (!built.env) return failed(names::kStepBeforeReset, built.error);
  ObservationBuffer observation(flat_size(spec.observation_space));
  observation.arm();
  ActionSampler sampler(spec.action_space, options.seed);
  StepResult r;
  const Thrown t = call([&] { r = built.env->step(sampler.sample(), observation.data()); });
  if (!t) {
    return failed(names::kStepBeforeReset,
                  "step() on a fresh env returned normally (reward " + format_number(r.reward) +
                      "); it must throw std::logic_error until reset() is called");
  }
  if (t.kind != Thrown::Kind::kLogicError) {
    return failed(names::kStepBeforeReset,
                  "step() on a fresh env threw " + t.describe() + "; expected std::logic_error");
  }
  return passed(names::kStepBeforeReset, "threw " + t.describe());
}

// One rollout of random actions feeds five checks: no errors, exact observation writes,
// observations in the space, finite rewards, and the time limit.
std::vector<EnvCheckResult> check_rollout(const EnvFactory& make_env, const EnvSpec& spec,
                                          const EnvCheckOptions& options) {
  Violations errors, writes, in_space, rewards, time_limit;
  const int limit = spec.max_episode_steps;
  std::int64_t steps_done = 0;
  std::int64_t episodes_ended = 0;
  std::int64_t truncated_at_limit = 0;
  bool stopped = false;

  const Built built = build(make_env, &spec);
  if (!built.env) {
    errors.add(built.error);
    stopped = true;
  }
  ObservationBuffer observation(flat_size(spec.observation_space));
  ActionSampler sampler(spec.action_space, options.seed);
  Position pos;

  const auto inspect_observation = [&] {
    const std::string where = pos.describe();
    const std::size_t n = observation.size();
    std::size_t unwritten = 0;
    std::size_t first_unwritten = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (observation.written(i)) continue;
      if (unwritten++ == 0) first_unwritten = i;
    }
    if (unwritten > 0) {
      writes.add(where + ": " + std::to_string(unwritten) + " of " + std::to_string(n) +
                 " observation floats not written (first: element " +
                 std::to_string(first_unwritten) + ")");
    }
    if (const std::int64_t guard = observation.first_overwritten_guard(); guard >= 0) {
      writes.add(where + ": wrote past the end of the observation (" + std::to_string(n) +
                 " floats): element " + std::to_string(n + static_cast<std::size_t>(guard)) +
                 " was overwritten");
    }

    const float* values = observation.values();
    std::string problem;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!observation.written(i)) continue;  // reported above
      const float v = values[i];
      std::string this_problem;
      if (const auto* discrete = std::get_if<Discrete>(&spec.observation_space)) {
        if (!(v >= 0 && v < static_cast<float>(discrete->n) && std::floor(v) == v)) {
          this_problem = "observation = " + format_number(v) + " is not an integer in [0, " +
                         std::to_string(discrete->n) + ")";
        }
      } else {
        const auto& box = std::get<Box>(spec.observation_space);
        if (std::isnan(v)) {
          this_problem = "observation[" + std::to_string(i) + "] is NaN";
        } else if (v < box.low[i] || v > box.high[i]) {
          this_problem = "observation[" + std::to_string(i) + "] = " + format_number(v) +
                         " is outside [" + format_number(box.low[i]) + ", " +
                         format_number(box.high[i]) + "]";
        }
      }
      if (!this_problem.empty() && bad++ == 0) problem = std::move(this_problem);
    }
    if (bad > 0) {
      in_space.add(
          where + ": " + problem +
          (bad > 1 ? " (and " + plural(static_cast<std::int64_t>(bad) - 1, "more element") + ")"
                   : ""));
    }
  };

  const auto reset = [&](std::optional<std::uint64_t> seed) {
    observation.arm();
    if (const Thrown t = call([&] { built.env->reset(observation.data(), seed); })) {
      errors.add(pos.describe() + ": reset() threw " + t.describe());
      stopped = true;
      return;
    }
    inspect_observation();
  };

  // An episode that went past the limit without truncated, reported when it ends.
  bool over_limit = false;
  const auto report_over_limit = [&](const char* how) {
    if (!over_limit) return;
    time_limit.add("episode " + std::to_string(pos.episode) + " " + how + " " +
                   std::to_string(pos.step) +
                   " steps, past max_episode_steps = " + std::to_string(limit) + " (step " +
                   std::to_string(limit) + " did not report truncated)");
    over_limit = false;
  };

  if (!stopped) reset(options.seed);
  bool needs_reset = false;
  while (!stopped && steps_done < options.steps) {
    if (needs_reset) {
      ++pos.episode;
      pos.step = 0;
      reset(std::nullopt);
      needs_reset = false;
      if (stopped) break;
    }
    const ActionRef action = sampler.sample();
    observation.arm();
    ++pos.step;
    StepResult r;
    if (const Thrown t = call([&] { r = built.env->step(action, observation.data()); })) {
      errors.add(pos.describe() + ": step() threw " + t.describe());
      stopped = true;
      break;
    }
    ++steps_done;
    inspect_observation();
    if (!std::isfinite(r.reward)) {
      rewards.add(pos.describe() + ": reward = " + format_number(r.reward));
    }
    const bool ended = r.terminated || r.truncated;
    if (limit > 0 && pos.step == limit) {
      if (r.truncated) {
        ++truncated_at_limit;
      } else if (ended) {
        time_limit.add(
            pos.describe() + ": the episode ended at max_episode_steps = " + std::to_string(limit) +
            " with " + format_flags(r) + "; the step that reaches the limit must report truncated");
      } else {
        over_limit = true;
      }
    }
    if (ended) {
      report_over_limit("ran");
      ++episodes_ended;
      needs_reset = true;
    }
  }
  report_over_limit("was still running after");

  const std::string coverage =
      plural(steps_done, "step") + " in " + plural(episodes_ended, "finished episode");
  const std::string stop_note = "not fully checked: an error stopped the rollout after " +
                                plural(steps_done, "step") + " (see '" + names::kNoErrors + "')";
  const auto result = [&](const char* check, const Violations& v, std::string pass_detail) {
    if (v.count() > 0) {
      return failed(check, v.summary() + (stopped ? " (" + stop_note + ")" : ""));
    }
    if (stopped) return skipped(check, stop_note);
    return passed(check, std::move(pass_detail));
  };

  std::vector<EnvCheckResult> results;
  results.push_back(errors.count() > 0
                        ? failed(names::kNoErrors,
                                 errors.summary() + " (after " + plural(steps_done, "step") + ")")
                        : passed(names::kNoErrors, coverage));
  results.push_back(result(names::kObservationWrites, writes, coverage));
  results.push_back(result(names::kObservationsInSpace, in_space, coverage));
  results.push_back(result(names::kFiniteRewards, rewards, coverage));
  std::string limit_detail = limit > 0 ? "limit " + std::to_string(limit) + "; " +
                                             plural(truncated_at_limit, "episode") +
                                             " reached it and reported truncated"
                                       : "no time limit (max_episode_steps = 0)";
  results.push_back(result(names::kTimeLimit, time_limit, limit_detail));
  return results;
}

EnvCheckResult check_step_after_end(const EnvFactory& make_env, const EnvSpec& spec,
                                    const EnvCheckOptions& options) {
  const char* check = names::kStepAfterEnd;
  const Built built = build(make_env, &spec);
  if (!built.env) return failed(check, built.error);
  // Long enough for an env that respects its time limit to end an episode (within reason).
  const std::int64_t steps = std::max<std::int64_t>(
      options.steps, std::min<std::int64_t>(spec.max_episode_steps, kMaxStepsToAnEnd));
  ObservationBuffer observation(flat_size(spec.observation_space));
  ActionSampler sampler(spec.action_space, options.seed);
  Violations violations;
  Position pos;
  std::int64_t ends = 0;
  std::string stop;

  const auto reset = [&](std::optional<std::uint64_t> seed) {
    observation.arm();
    if (const Thrown t = call([&] { built.env->reset(observation.data(), seed); })) {
      stop = pos.describe() + ": reset() threw " + t.describe();
    }
  };
  reset(options.seed);
  for (std::int64_t i = 0; i < steps && stop.empty(); ++i) {
    ++pos.step;
    StepResult r;
    if (const Thrown t = call([&] { r = built.env->step(sampler.sample(), observation.data()); })) {
      stop = pos.describe() + ": step() threw " + t.describe();
      break;
    }
    if (!(r.terminated || r.truncated)) continue;
    ++ends;
    const std::string how = r.truncated ? "truncated" : "terminated";
    StepResult again;
    const Thrown t = call([&] { again = built.env->step(sampler.sample(), observation.data()); });
    if (!t) {
      violations.add(pos.describe() + " " + how + " the episode, then step() without reset() " +
                     "returned normally (reward " + format_number(again.reward) +
                     "); it must throw std::logic_error");
    } else if (t.kind != Thrown::Kind::kLogicError) {
      violations.add(pos.describe() + " " + how + " the episode, then step() without reset() " +
                     "threw " + t.describe() + "; expected std::logic_error");
    }
    ++pos.episode;
    pos.step = 0;
    reset(std::nullopt);
  }

  if (violations.count() > 0) return failed(check, violations.summary());
  if (!stop.empty()) {
    return skipped(check, "not fully checked: " + stop + " (see '" + names::kNoErrors + "')");
  }
  if (ends == 0) {
    return skipped(check, "no episode ended within " + plural(steps, "step"));
  }
  return passed(check, "refused after each of " + plural(ends, "episode end"));
}

// What one call returned, for comparing two envs.
struct Outcome {
  Thrown thrown;
  StepResult result;
  std::vector<float> observation;  // bits as written
};

// "" if the outcomes are bit-identical, else the first difference.
std::string difference(const Outcome& a, const Outcome& b, const char* a_name, const char* b_name) {
  if (!(a.thrown == b.thrown)) {
    const auto what = [](const Outcome& o) {
      return o.thrown ? "threw " + o.thrown.describe() : std::string("returned normally");
    };
    return std::string(a_name) + " " + what(a) + ", " + b_name + " " + what(b);
  }
  for (std::size_t i = 0; i < a.observation.size(); ++i) {
    if (bits_of(a.observation[i]) != bits_of(b.observation[i])) {
      return "observation[" + std::to_string(i) + "] = " + format_number(a.observation[i]) + " (" +
             a_name + ") vs " + format_number(b.observation[i]) + " (" + b_name + ")";
    }
  }
  if (std::memcmp(&a.result.reward, &b.result.reward, sizeof(double)) != 0) {
    return "reward " + format_number(a.result.reward) + " (" + a_name + ") vs " +
           format_number(b.result.reward) + " (" + b_name + ")";
  }
  if (a.result.terminated != b.result.terminated || a.result.truncated != b.result.truncated) {
    return format_flags(a.result) + " (" + a_name + ") vs " + format_flags(b.result) + " (" +
           b_name + ")";
  }
  return {};
}

EnvCheckResult check_determinism(const EnvFactory& make_env, const EnvSpec& spec,
                                 const EnvCheckOptions& options) {
  const char* check = names::kDeterminism;
  const Built first = build(make_env, &spec);
  if (!first.env) return failed(check, first.error);
  const Built second = build(make_env, &spec);
  if (!second.env) return failed(check, "second env: " + second.error);
  Env* envs[2] = {first.env.get(), second.env.get()};
  const std::int64_t size = flat_size(spec.observation_space);
  ObservationBuffer buffers[2] = {ObservationBuffer(size), ObservationBuffer(size)};
  const auto capture = [&](int k, Thrown thrown, StepResult result) {
    const float* v = buffers[k].values();
    return Outcome{std::move(thrown), result,
                   std::vector<float>(v, v + static_cast<std::size_t>(size))};
  };
  const auto reset = [&](int k, std::optional<std::uint64_t> seed) {
    buffers[k].arm();
    Thrown t = call([&] { envs[k]->reset(buffers[k].data(), seed); });
    return capture(k, std::move(t), {});
  };
  const auto step = [&](int k, const ActionRef& action) {
    buffers[k].arm();
    StepResult r;
    Thrown t = call([&] { r = envs[k]->step(action, buffers[k].data()); });
    return capture(k, std::move(t), r);
  };

  // The first episode, replayed at the end after reset(seed) on the first env.
  const Outcome first_reset = reset(0, options.seed);
  std::vector<StoredAction> episode_actions;
  std::vector<Outcome> episode_outcomes;
  bool in_first_episode = true;

  ActionSampler sampler(spec.action_space, options.seed);
  Position pos;
  std::string divergence;
  std::string stop;  // both envs threw the same: consistent, but the comparison ends there
  std::int64_t steps_done = 0;
  std::int64_t resets = 1;
  Outcome a = first_reset;
  Outcome b = reset(1, options.seed);
  bool needs_reset = false;
  while (true) {
    if (const std::string d = difference(a, b, "env 1", "env 2"); !d.empty()) {
      divergence = pos.describe() + ": " + d;
      break;
    }
    if (a.thrown) {
      stop = pos.describe() + ": both envs threw " + a.thrown.describe();
      break;
    }
    if (steps_done >= options.steps) break;
    if (needs_reset) {
      ++pos.episode;
      pos.step = 0;
      a = reset(0, std::nullopt);
      b = reset(1, std::nullopt);
      ++resets;
      needs_reset = false;
      continue;
    }
    const ActionRef action = sampler.sample();
    ++pos.step;
    ++steps_done;
    a = step(0, action);
    b = step(1, action);
    needs_reset = a.result.terminated || a.result.truncated;
    if (in_first_episode) {
      episode_actions.emplace_back(action);
      episode_outcomes.push_back(a);
      in_first_episode = !needs_reset;
    }
  }

  // Reset the first env with the seed again: the first episode must replay.
  std::string replay;
  if (!first_reset.thrown) {
    Position replay_pos;
    Outcome again = reset(0, options.seed);
    std::string d = difference(first_reset, again, "first time", "again");
    for (std::size_t i = 0; d.empty() && !again.thrown && i < episode_actions.size(); ++i) {
      ++replay_pos.step;
      again = step(0, episode_actions[i].ref());
      d = difference(episode_outcomes[i], again, "first time", "again");
    }
    if (!d.empty()) {
      replay = "after reset(seed = " + std::to_string(options.seed) + ") on a used env, " +
               replay_pos.describe() + " differs from the first run: " + d;
    }
  }

  if (!divergence.empty() || !replay.empty()) {
    std::string detail;
    if (!divergence.empty())
      detail = "two fresh envs given the same seed and actions differ at " + divergence;
    if (!replay.empty()) detail += (detail.empty() ? "" : "; ") + replay;
    return failed(check, detail);
  }
  if (!stop.empty()) {
    return skipped(check, "not fully checked: at " + stop + " (see '" + names::kNoErrors + "')");
  }
  return passed(check, plural(steps_done, "step") + " and " + plural(resets, "reset") +
                           " identical; the first episode replays after reset(seed)");
}

EnvCheckResult check_invalid_actions(const EnvFactory& make_env, const EnvSpec& spec,
                                     const EnvCheckOptions& options) {
  const char* check = names::kInvalidActions;
  const Built built = build(make_env, &spec);
  if (!built.env) return failed(check, built.error);
  ObservationBuffer observation(flat_size(spec.observation_space));

  // Each invalid action with its description; Box values live in `storage`.
  std::vector<std::pair<std::string, ActionRef>> invalid;
  std::vector<std::vector<float>> storage;
  if (const auto* discrete = std::get_if<Discrete>(&spec.action_space)) {
    invalid.push_back({"index " + std::to_string(discrete->n), {discrete->n, nullptr, 0}});
    invalid.push_back({"index -1", {-1, nullptr, 0}});
  } else {
    ActionSampler sampler(spec.action_space, options.seed);
    const ActionRef valid = sampler.sample();
    const std::int64_t size = valid.size;
    const auto stored = [&](std::vector<float> values) {
      storage.push_back(std::move(values));
      return storage.back().data();
    };
    storage.reserve(3);
    std::vector<float> values(valid.values, valid.values + size);
    std::vector<float> with_nan = values;
    with_nan[0] = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> longer = values;
    longer.push_back(values[0]);
    invalid.push_back({"a NaN value", {0, stored(with_nan), size}});
    invalid.push_back({plural(size + 1, "value") + " instead of " + std::to_string(size),
                       {0, stored(longer), size + 1}});
    // One value too few; the buffer still holds `size` values, so a careless env reads no
    // further than it would anyway.
    invalid.push_back({plural(size - 1, "value") + " instead of " + std::to_string(size),
                       {0, stored(values), size - 1}});
  }

  Violations violations;
  std::vector<std::string> refused;
  for (const auto& [what, action] : invalid) {
    observation.arm();
    if (const Thrown t = call([&] { built.env->reset(observation.data(), options.seed); })) {
      return skipped(check, "not checked: reset() threw " + t.describe() + " (see '" +
                                names::kNoErrors + "')");
    }
    observation.arm();
    const ActionRef a = action;
    StepResult r;
    const Thrown t = call([&] { r = built.env->step(a, observation.data()); });
    if (!t) {
      violations.add("invalid action (" + what + ") was accepted: step() returned reward " +
                     format_number(r.reward) + "; it must throw std::invalid_argument");
    } else if (t.kind != Thrown::Kind::kInvalidArgument) {
      violations.add("invalid action (" + what + "): step() threw " + t.describe() +
                     "; expected std::invalid_argument");
    } else {
      refused.push_back(what);
    }
  }
  if (violations.count() > 0) return failed(check, violations.summary());
  std::string detail = "refused ";
  for (std::size_t i = 0; i < refused.size(); ++i) {
    detail += (i == 0 ? "" : i + 1 == refused.size() ? " and " : ", ") + refused[i];
  }
  return passed(check, detail);
}

}  // namespace

bool EnvCheckReport::passed() const {
  return std::none_of(results.begin(), results.end(),
                      [](const EnvCheckResult& r) { return r.failed(); });
}

const EnvCheckResult* EnvCheckReport::find(const std::string& check) const {
  for (const auto& r : results) {
    if (r.check == check) return &r;
  }
  return nullptr;
}

EnvCheckReport check_env(const EnvFactory& make_env, const EnvCheckOptions& options) {
  if (options.steps < 1) {
    throw std::invalid_argument("check_env: steps is " + std::to_string(options.steps) +
                                ", must be >= 1");
  }
  EnvCheckReport report;
  std::optional<EnvSpec> spec;
  report.results.push_back(check_spec(make_env, spec, report.env_id));
  if (!spec) {
    report.results.back().detail += "; the other checks need a valid spec and were not run";
    return report;
  }
  report.results.push_back(check_step_before_reset(make_env, *spec, options));
  for (auto& r : check_rollout(make_env, *spec, options)) report.results.push_back(std::move(r));
  report.results.push_back(check_step_after_end(make_env, *spec, options));
  report.results.push_back(check_determinism(make_env, *spec, options));
  report.results.push_back(check_invalid_actions(make_env, *spec, options));
  return report;
}

EnvCheckReport check_registered_env(const std::string& id, const EnvCheckOptions& options,
                                    const Registry& registry) {
  if (!registry.contains(id)) registry.make(id);  // throws the "unknown environment" message
  EnvCheckReport report = check_env([&] { return registry.make(id); }, options);
  if (report.env_id.empty()) report.env_id = id;
  return report;
}

}  // namespace mnrl::envs
