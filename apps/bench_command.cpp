#include <chrono>
#include <cstdio>
#include <exception>

#include "apps/commands.h"
#include "core/config.h"
#include "core/rng.h"
#include "envs/registry.h"
#include "experiments/experiment_options.h"
#include "experiments/on_policy_training.h"

namespace mnrl::apps {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Random actions drawn before timing and cycled, so the RNG is not part of the measurement.
std::vector<std::int64_t> random_actions(std::int64_t num_actions) {
  std::vector<std::int64_t> actions(1 << 16);
  core::Rng rng(1);
  for (auto& a : actions) a = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(num_actions)));
  return actions;
}

// Steps one env (as the registry builds it, time limit included) with random actions.
double single_env_steps_per_second(const envs::EnvOptions& options, std::int64_t steps) {
  auto env = envs::Registry::global().make(options.id, options.max_episode_steps);
  const auto actions = random_actions(std::get<envs::Discrete>(env->spec().action_space).n);
  const std::size_t mask = actions.size() - 1;
  std::vector<float> observation(static_cast<std::size_t>(envs::flat_size(env->spec().observation_space)));
  env->reset(observation.data(), 1);
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < steps; ++i) {
    const auto r = env->step({actions[static_cast<std::size_t>(i) & mask], nullptr},
                             observation.data());
    if (r.terminated || r.truncated) env->reset(observation.data(), std::nullopt);
  }
  return static_cast<double>(steps) / seconds_since(start);
}

double vector_env_steps_per_second(const envs::EnvOptions& options, std::int64_t steps) {
  auto envs = envs::make_vector_env(options, 1);
  const auto actions = random_actions(std::get<envs::Discrete>(envs->spec().action_space).n);
  const auto n = static_cast<std::size_t>(envs->num_envs());
  envs->reset();
  const std::int64_t calls = steps / envs->num_envs();
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < calls; ++i) {
    // Consecutive windows of the table (wrapping early so a window never runs past its end).
    const std::size_t offset = (static_cast<std::size_t>(i) * n) % (actions.size() - n);
    envs->step({actions.data() + offset, nullptr, static_cast<std::size_t>(options.num_envs)});
  }
  return static_cast<double>(calls * envs->num_envs()) / seconds_since(start);
}

class NoMetrics final : public experiments::MetricsSink {
 public:
  void scalar(std::int64_t, const std::string&, double) override {}
};

}  // namespace

int bench_command(const BenchArguments& args) {
  experiments::ExperimentOptions options;
  try {
    options = experiments::load_experiment(args.config, args.overrides);
  } catch (const core::ConfigError& e) {
    std::fprintf(stderr, "mnrl bench: config error: %s\n", e.what());
    return kExitUsage;
  }
  try {
    const std::string& id = options.env.id;
    std::printf("%-44s %14.0f steps/s\n", (id + ", single env").c_str(),
                single_env_steps_per_second(options.env, args.env_steps));
    std::printf("%-44s %14.0f steps/s\n",
                (id + ", vector env of " + std::to_string(options.env.num_envs)).c_str(),
                vector_env_steps_per_second(options.env, args.env_steps));
    if (args.skip_training) return kExitOk;

    NoMetrics metrics;
    const auto result = experiments::train_on_policy(options, metrics);
    std::printf("%-44s %14.0f steps/s  (%lld steps in %.2f s, final eval %.1f ± %.1f)\n",
                (options.algo + " end to end, " + args.config).c_str(),
                static_cast<double>(result.steps) / result.seconds,
                static_cast<long long>(result.steps), result.seconds,
                result.final_evaluation.mean_return, result.final_evaluation.std_return);
    return kExitOk;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mnrl bench: error: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace mnrl::apps
