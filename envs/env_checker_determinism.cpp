// The replay checks: two fresh envs given the same seed and actions agree bit for bit, reset(seed)
// replays the first episode, and a saved state replays the steps that followed it.
#include <algorithm>
#include <optional>
#include <utility>

#include "core/state_stream.h"
#include "envs/action_sampler.h"
#include "envs/env_checker_detail.h"
#include "envs/saved_state.h"

namespace mnrl::envs::env_check_detail {
namespace {

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

// Calls after a saved state: a random rollout that resets (unseeded) after each episode, and
// replays of it on an env that loaded the state.
constexpr std::int64_t kMaxStepsAfterASave = 100;

// One call of a rollout: reset() (no action) or step(action).
struct Call {
  std::optional<StoredAction> action;
  Position position;
};

// Records and replays the calls of a rollout on one env at a time.
class Rollout {
 public:
  explicit Rollout(const EnvSpec& spec) : buffer_(spec.observation_space) {}

  Outcome reset(Env& env, std::optional<std::uint64_t> seed) {
    buffer_.arm();
    Thrown t = call([&] { env.reset(buffer_.data(), seed); });
    return Outcome{std::move(t), {}, buffer_.copy()};
  }
  Outcome step(Env& env, const ActionRef& action) {
    buffer_.arm();
    StepResult r;
    Thrown t = call([&] { r = env.step(action, buffer_.data()); });
    return Outcome{std::move(t), r, buffer_.copy()};
  }
  Outcome replay(Env& env, const Call& c) {
    return c.action ? step(env, c.action->ref()) : reset(env, std::nullopt);
  }

 private:
  ObservationBuffer buffer_;
};

// The state of `env` as saved, or why it could not be saved.
std::string save(const Env& env, std::string& error) {
  core::StateWriter out;
  if (const Thrown t = call([&] { save_env_state(env, out); })) {
    error = "save_state() threw " + t.describe();
  }
  return out.bytes();
}

// Loads `state` into `env`; "" or what went wrong.
std::string load(Env& env, const std::string& state) {
  core::StateReader in(state, "the saved state");
  if (const Thrown t = call([&] {
        load_env_state(env, in);
        in.expect_end();
      })) {
    return "load_state() of what save_state() wrote threw " + t.describe();
  }
  return {};
}

// Where the random rollout after a save is: its actions and its position.
struct RolloutCursor {
  ActionSampler& sampler;
  core::Rng& rng;
  Position& position;
};

// The calls after a saved state and what they returned, `steps` of them or up to the first
// that threw (the cursor then at its position).
struct CallsAfterSave {
  std::vector<Call> calls;
  std::vector<Outcome> outcomes;
};

CallsAfterSave calls_after_save(Rollout& rollout, Env& env, RolloutCursor cursor, bool needs_reset,
                                std::int64_t steps) {
  CallsAfterSave after;
  Position& pos = cursor.position;
  for (std::int64_t k = 0; k < steps; ++k) {
    if (needs_reset) {
      ++pos.episode;
      pos.step = 0;
      after.calls.push_back({std::nullopt, pos});
      after.outcomes.push_back(rollout.reset(env, std::nullopt));
    } else {
      ++pos.step;
      const ActionRef action = cursor.sampler.sample(cursor.rng);
      after.calls.push_back({StoredAction(action), pos});
      after.outcomes.push_back(rollout.step(env, action));
    }
    if (after.outcomes.back().thrown) break;
    needs_reset = after.outcomes.back().result.terminated || after.outcomes.back().result.truncated;
  }
  return after;
}

// "" if `env` replays the calls after the save bit for bit, else the first that differs.
std::string replay_difference(Rollout& rollout, Env& env, const CallsAfterSave& after) {
  for (std::size_t i = 0; i < after.calls.size(); ++i) {
    const Outcome again = rollout.replay(env, after.calls[i]);
    if (const std::string d =
            difference(after.outcomes[i], again, "after the save", "after the load");
        !d.empty()) {
      return after.calls[i].position.describe() + " differs: " + d;
    }
  }
  return {};
}

// Two fresh envs of one spec, called alike: reset and step either, capturing what it returned.
class TwinEnvs {
 public:
  TwinEnvs(const Built& first, const Built& second, const EnvSpec& spec)
      : envs_{first.env.get(), second.env.get()},
        buffers_{ObservationBuffer(spec.observation_space),
                 ObservationBuffer(spec.observation_space)} {}

  Outcome reset(int k, std::optional<std::uint64_t> seed) {
    buffers_[k].arm();
    Thrown t = call([&] { envs_[k]->reset(buffers_[k].data(), seed); });
    return {std::move(t), {}, buffers_[k].copy()};
  }
  Outcome step(int k, const ActionRef& action) {
    buffers_[k].arm();
    StepResult r;
    Thrown t = call([&] { r = envs_[k]->step(action, buffers_[k].data()); });
    return {std::move(t), r, buffers_[k].copy()};
  }

 private:
  Env* envs_[2];
  ObservationBuffer buffers_[2];
};

// What the two envs did in lockstep, given the same seed and random actions.
struct Lockstep {
  Outcome first_reset;  // of env 1
  // The first episode of env 1, to replay after reset(seed).
  std::vector<StoredAction> episode_actions;
  std::vector<Outcome> episode_outcomes;
  std::string divergence;  // where the envs first differed, if they did
  std::string stop;        // both envs threw the same: consistent, but the comparison ends there
  std::int64_t steps = 0;
  std::int64_t resets = 1;
};

Lockstep run_in_lockstep(TwinEnvs& twins, const EnvSpec& spec, const EnvCheckOptions& options) {
  Lockstep run;
  run.first_reset = twins.reset(0, options.seed);
  ActionSampler sampler(spec.action_space);
  core::Rng rng = action_rng(options);
  Position pos;
  bool in_first_episode = true;
  bool needs_reset = false;
  Outcome a = run.first_reset;
  Outcome b = twins.reset(1, options.seed);
  while (true) {
    if (const std::string d = difference(a, b, "env 1", "env 2"); !d.empty()) {
      run.divergence = pos.describe() + ": " + d;
      return run;
    }
    if (a.thrown) {
      run.stop = pos.describe() + ": both envs threw " + a.thrown.describe();
      return run;
    }
    if (run.steps >= options.steps) return run;
    if (needs_reset) {
      ++pos.episode;
      pos.step = 0;
      a = twins.reset(0, std::nullopt);
      b = twins.reset(1, std::nullopt);
      ++run.resets;
      needs_reset = false;
      continue;
    }
    const ActionRef action = sampler.sample(rng);
    ++pos.step;
    ++run.steps;
    a = twins.step(0, action);
    b = twins.step(1, action);
    needs_reset = a.result.terminated || a.result.truncated;
    if (in_first_episode) {
      run.episode_actions.emplace_back(action);
      run.episode_outcomes.push_back(a);
      in_first_episode = !needs_reset;
    }
  }
}

// Env 1 reset with the seed again: "" if its first episode replays, else where it differs.
std::string replay_first_episode(TwinEnvs& twins, const Lockstep& run, std::uint64_t seed) {
  if (run.first_reset.thrown) return {};
  Position pos;
  Outcome again = twins.reset(0, seed);
  std::string d = difference(run.first_reset, again, "first time", "again");
  for (std::size_t i = 0; d.empty() && !again.thrown && i < run.episode_actions.size(); ++i) {
    ++pos.step;
    again = twins.step(0, run.episode_actions[i].ref());
    d = difference(run.episode_outcomes[i], again, "first time", "again");
  }
  if (d.empty()) return {};
  return "after reset(seed = " + std::to_string(seed) + ") on a used env, " + pos.describe() +
         " differs from the first run: " + d;
}

}  // namespace

EnvCheckResult check_saved_state(const EnvMaker& make_env, const EnvSpec& spec,
                                 const EnvCheckOptions& options) {
  const char* check = names::kSavedState;
  const Built built = build(make_env, &spec);
  if (!built.env) return failed(check, built.error);
  Env& env = *built.env;
  if (!saves_state(env)) {
    return passed(check,
                  "not applicable: the env saves no state (it may not: a resumed run "
                  "then starts new episodes)");
  }
  Rollout rollout(spec);
  ActionSampler sampler(spec.action_space);
  core::Rng rng = action_rng(options);
  Position pos;
  // Saved in the middle of the first episode, or at its end if it is shorter.
  Outcome last = rollout.reset(env, options.seed);
  for (std::int64_t k = 0;
       k < 3 && !last.thrown && !last.result.terminated && !last.result.truncated; ++k) {
    ++pos.step;
    last = rollout.step(env, sampler.sample(rng));
  }
  const auto not_checked = [&](const Outcome& o) {
    return skipped(check, "not checked: at " + pos.describe() + " the env threw " +
                              o.thrown.describe() + " (see '" + names::kNoErrors + "')");
  };
  if (last.thrown) return not_checked(last);
  const Position saved_at = pos;
  std::string error;
  const std::string state = save(env, error);
  if (!error.empty()) return failed(check, "at " + saved_at.describe() + ": " + error);

  // The calls after the save, as they first went.
  const bool needs_reset = last.result.terminated || last.result.truncated;
  const std::int64_t steps = std::min(options.steps, kMaxStepsAfterASave);
  const CallsAfterSave after =
      calls_after_save(rollout, env, {sampler, rng, pos}, needs_reset, steps);
  if (!after.outcomes.empty() && after.outcomes.back().thrown) {
    return not_checked(after.outcomes.back());
  }

  // Loaded back into the same env, then into a fresh one (as a resume does), the state replays
  // the same calls bit for bit.
  const Built fresh = build(make_env, &spec);
  if (!fresh.env) return failed(check, "a fresh env: " + fresh.error);
  const std::pair<Env*, const char*> loaders[] = {{&env, "the same env"},
                                                  {fresh.env.get(), "a fresh env"}};
  for (const auto& [target, name] : loaders) {
    const std::string where = "state saved at " + saved_at.describe() + ", loaded into " + name;
    if (const std::string problem = load(*target, state); !problem.empty()) {
      return failed(check, where + ": " + problem);
    }
    if (const std::string d = replay_difference(rollout, *target, after); !d.empty()) {
      return failed(check, where + ": " + d);
    }
  }
  return passed(check, "saved at " + saved_at.describe() + ", " + plural(steps, "call") +
                           " replayed bit for bit after loading into the same env and a fresh one");
}

EnvCheckResult check_determinism(const EnvMaker& make_env, const EnvSpec& spec,
                                 const EnvCheckOptions& options) {
  const char* check = names::kDeterminism;
  const Built first = build(make_env, &spec);
  if (!first.env) return failed(check, first.error);
  const Built second = build(make_env, &spec);
  if (!second.env) return failed(check, "second env: " + second.error);
  TwinEnvs twins(first, second, spec);
  const Lockstep run = run_in_lockstep(twins, spec, options);
  const std::string replay = replay_first_episode(twins, run, options.seed);

  if (!run.divergence.empty() || !replay.empty()) {
    std::string detail;
    if (!run.divergence.empty())
      detail = "two fresh envs given the same seed and actions differ at " + run.divergence;
    if (!replay.empty()) detail += (detail.empty() ? "" : "; ") + replay;
    return failed(check, detail);
  }
  if (!run.stop.empty()) {
    return skipped(check,
                   "not fully checked: at " + run.stop + " (see '" + names::kNoErrors + "')");
  }
  return passed(check, plural(run.steps, "step") + " and " + plural(run.resets, "reset") +
                           " identical; the first episode replays after reset(seed)");
}

}  // namespace mnrl::envs::env_check_detail
