// The checks driven by rollouts of random actions: no errors, exact observation writes,
// observations in the space, finite rewards, the time limit, and step after the episode ended.
#include <algorithm>
#include <cmath>
#include <optional>

#include "envs/action_sampler.h"
#include "envs/env_checker_detail.h"

namespace mnrl::envs::env_check_detail {
namespace {

// Steps the "step after the episode ended" check may add to reach the time limit.
constexpr std::int64_t kMaxStepsToAnEnd = 1'000'000;

}  // namespace

namespace {

// One rollout of random actions, each reset and step inspected by the checks it feeds.
class Rollout {
 public:
  Rollout(const EnvMaker& make_env, const EnvSpec& spec, const EnvCheckOptions& options)
      : spec_(spec),
        limit_(spec.max_episode_steps),
        built_(build(make_env, &spec)),
        observation_(spec.observation_space),
        sampler_(spec.action_space),
        rng_(action_rng(options)) {
    if (!built_.env) {
      errors_.add(built_.error);
      stopped_ = true;
    }
  }

  // Resets with options.seed, then steps until `steps` steps or an error.
  void run(const EnvCheckOptions& options) {
    if (!stopped_) reset(options.seed);
    bool needs_reset = false;
    while (!stopped_ && steps_done_ < options.steps) {
      if (needs_reset) {
        ++pos_.episode;
        pos_.step = 0;
        reset(std::nullopt);
        needs_reset = false;
        if (stopped_) break;
      }
      needs_reset = step();
    }
    report_over_limit("was still running after");
  }

  std::vector<EnvCheckResult> results() const;

 private:
  void reset(std::optional<std::uint64_t> seed) {
    observation_.arm();
    if (const Thrown t = call([&] { built_.env->reset(observation_.data(), seed); })) {
      errors_.add(pos_.describe() + ": reset() threw " + t.describe());
      stopped_ = true;
      return;
    }
    inspect_observation();
  }

  // One step of a random action; returns whether the episode ended.
  bool step() {
    const ActionRef action = sampler_.sample(rng_);
    observation_.arm();
    ++pos_.step;
    StepResult r;
    if (const Thrown t = call([&] { r = built_.env->step(action, observation_.data()); })) {
      errors_.add(pos_.describe() + ": step() threw " + t.describe());
      stopped_ = true;
      return false;
    }
    ++steps_done_;
    inspect_observation();
    if (!std::isfinite(r.reward)) {
      rewards_.add(pos_.describe() + ": reward = " + format_number(r.reward));
    }
    const bool ended = r.terminated || r.truncated;
    check_time_limit(r, ended);
    if (ended) {
      report_over_limit("ran");
      ++episodes_ended_;
    }
    return ended;
  }

  // Exact observation writes, and observations in the space.
  void inspect_observation() {
    const std::string where = pos_.describe();
    const std::size_t n = observation_.size();
    std::size_t unwritten = 0;
    std::size_t first_unwritten = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (observation_.written(i)) continue;
      if (unwritten++ == 0) first_unwritten = i;
    }
    if (unwritten > 0) {
      writes_.add(where + ": " + std::to_string(unwritten) + " of " + std::to_string(n) +
                  " observation elements not written (first: element " +
                  std::to_string(first_unwritten) + ")");
    }
    if (const std::int64_t guard = observation_.first_overwritten_guard(); guard >= 0) {
      writes_.add(where + ": wrote past the end of the observation (" + std::to_string(n) +
                  " elements): element " + std::to_string(n + static_cast<std::size_t>(guard)) +
                  " was overwritten");
    }
    const OutsideSpace outside =
        find_outside(spec_.observation_space, observation_.values(),
                     [&](std::size_t i) { return !observation_.written(i); });  // reported above
    if (outside.count > 0) {
      in_space_.add(
          where + ": " + outside.first +
          (outside.count > 1
               ? " (and " + plural(static_cast<std::int64_t>(outside.count) - 1, "more element") +
                     ")"
               : ""));
    }
  }

  // The step that reaches max_episode_steps reports truncated.
  void check_time_limit(const StepResult& r, bool ended) {
    if (limit_ <= 0 || pos_.step != limit_) return;
    if (r.truncated) {
      ++truncated_at_limit_;
    } else if (ended) {
      time_limit_.add(
          pos_.describe() + ": the episode ended at max_episode_steps = " + std::to_string(limit_) +
          " with " + format_flags(r) + "; the step that reaches the limit must report truncated");
    } else {
      over_limit_ = true;
    }
  }

  // An episode that went past the limit without truncated, reported when it ends.
  void report_over_limit(const char* how) {
    if (!over_limit_) return;
    time_limit_.add("episode " + std::to_string(pos_.episode) + " " + how + " " +
                    std::to_string(pos_.step) +
                    " steps, past max_episode_steps = " + std::to_string(limit_) + " (step " +
                    std::to_string(limit_) + " did not report truncated)");
    over_limit_ = false;
  }

  const EnvSpec& spec_;
  const int limit_;
  const Built built_;
  ObservationBuffer observation_;
  ActionSampler sampler_;
  core::Rng rng_;
  Position pos_;
  Violations errors_, writes_, in_space_, rewards_, time_limit_;
  std::int64_t steps_done_ = 0;
  std::int64_t episodes_ended_ = 0;
  std::int64_t truncated_at_limit_ = 0;
  bool stopped_ = false;
  bool over_limit_ = false;
};

std::vector<EnvCheckResult> Rollout::results() const {
  const std::string coverage =
      plural(steps_done_, "step") + " in " + plural(episodes_ended_, "finished episode");
  const std::string stop_note = "not fully checked: an error stopped the rollout after " +
                                plural(steps_done_, "step") + " (see '" + names::kNoErrors + "')";
  const auto result = [&](const char* check, const Violations& v, std::string pass_detail) {
    if (v.count() > 0) {
      return failed(check, v.summary() + (stopped_ ? " (" + stop_note + ")" : ""));
    }
    if (stopped_) return skipped(check, stop_note);
    return passed(check, std::move(pass_detail));
  };
  std::vector<EnvCheckResult> results;
  results.push_back(errors_.count() > 0
                        ? failed(names::kNoErrors,
                                 errors_.summary() + " (after " + plural(steps_done_, "step") + ")")
                        : passed(names::kNoErrors, coverage));
  results.push_back(result(names::kObservationWrites, writes_, coverage));
  results.push_back(result(names::kObservationsInSpace, in_space_, coverage));
  results.push_back(result(names::kFiniteRewards, rewards_, coverage));
  std::string limit_detail = limit_ > 0 ? "limit " + std::to_string(limit_) + "; " +
                                              plural(truncated_at_limit_, "episode") +
                                              " reached it and reported truncated"
                                        : "no time limit (max_episode_steps = 0)";
  results.push_back(result(names::kTimeLimit, time_limit_, limit_detail));
  return results;
}

}  // namespace

// One rollout of random actions feeds five checks: no errors, exact observation writes,
// observations in the space, finite rewards, and the time limit.
std::vector<EnvCheckResult> check_rollout(const EnvMaker& make_env, const EnvSpec& spec,
                                          const EnvCheckOptions& options) {
  Rollout rollout(make_env, spec, options);
  rollout.run(options);
  return rollout.results();
}

EnvCheckResult check_step_after_end(const EnvMaker& make_env, const EnvSpec& spec,
                                    const EnvCheckOptions& options) {
  const char* check = names::kStepAfterEnd;
  const Built built = build(make_env, &spec);
  if (!built.env) return failed(check, built.error);
  // Long enough for an env that respects its time limit to end an episode (within reason).
  const std::int64_t steps = std::max<std::int64_t>(
      options.steps, std::min<std::int64_t>(spec.max_episode_steps, kMaxStepsToAnEnd));
  ObservationBuffer observation(spec.observation_space);
  ActionSampler sampler(spec.action_space);
  core::Rng rng = action_rng(options);
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
    if (const Thrown t =
            call([&] { r = built.env->step(sampler.sample(rng), observation.data()); })) {
      stop = pos.describe() + ": step() threw " + t.describe();
      break;
    }
    if (!(r.terminated || r.truncated)) continue;
    ++ends;
    const std::string how = r.truncated ? "truncated" : "terminated";
    StepResult again;
    const Thrown t =
        call([&] { again = built.env->step(sampler.sample(rng), observation.data()); });
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

}  // namespace mnrl::envs::env_check_detail
