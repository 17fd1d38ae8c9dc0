// The determinism check: two fresh envs given the same seed and actions agree bit for bit, and
// reset(seed) replays the first episode.
#include <optional>

#include "envs/action_sampler.h"
#include "envs/env_checker_detail.h"

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

}  // namespace

EnvCheckResult check_determinism(const EnvMaker& make_env, const EnvSpec& spec,
                                 const EnvCheckOptions& options) {
  const char* check = names::kDeterminism;
  const Built first = build(make_env, &spec);
  if (!first.env) return failed(check, first.error);
  const Built second = build(make_env, &spec);
  if (!second.env) return failed(check, "second env: " + second.error);
  Env* envs[2] = {first.env.get(), second.env.get()};
  ObservationBuffer buffers[2] = {ObservationBuffer(spec.observation_space),
                                  ObservationBuffer(spec.observation_space)};
  const auto capture = [&](int k, Thrown thrown, StepResult result) {
    return Outcome{std::move(thrown), result, buffers[k].copy()};
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

  ActionSampler sampler(spec.action_space);

  core::Rng rng = action_rng(options);
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
    const ActionRef action = sampler.sample(rng);
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

}  // namespace mnrl::envs::env_check_detail
