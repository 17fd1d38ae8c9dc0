#include "envs/env_options.h"

#include <stdexcept>
#include <string>

#include "envs/clip_action.h"
#include "envs/episode_statistics.h"
#include "envs/flicker.h"
#include "envs/frame_stack.h"
#include "envs/normalize_observation.h"
#include "envs/normalize_reward.h"
#include "envs/plugin_env_guard.h"
#include "envs/registry.h"
#include "envs/rescale_action.h"
#include "envs/time_limit.h"

namespace mnrl::envs {
namespace {

std::unique_ptr<Env> wrap(std::unique_ptr<Env> env, const WrapperOptions& wrapper) {
  if (wrapper.type == "time_limit") {
    return std::make_unique<TimeLimit>(std::move(env), wrapper.max_episode_steps);
  }
  if (wrapper.type == "clip_action") return std::make_unique<ClipAction>(std::move(env));
  if (wrapper.type == "rescale_action") {
    return std::make_unique<RescaleAction>(std::move(env), wrapper.min_action, wrapper.max_action);
  }
  if (wrapper.type == "flicker")
    return std::make_unique<Flicker>(std::move(env), wrapper.probability);
  if (wrapper.type == "frame_stack") {
    return std::make_unique<FrameStack>(std::move(env), wrapper.num_frames);
  }
  throw std::logic_error("wrap: '" + wrapper.type + "' is not an env-level wrapper");
}

// Where a training vector env's statistics come from for the evaluation envs.
struct TrainingStatistics {
  const NormalizeObservation* observations = nullptr;
};

std::vector<std::unique_ptr<BatchTransform>> make_transforms(
    const EnvOptions& options, std::size_t num_envs, std::size_t observation_size,
    const TrainingStatistics* evaluation_source) {
  std::vector<std::unique_ptr<BatchTransform>> transforms;
  for (const WrapperOptions& wrapper : options.wrappers) {
    if (wrapper.type == "episode_statistics") {
      // Evaluation always reports the env's own returns: VectorEnv puts statistics first.
      if (!evaluation_source) transforms.push_back(std::make_unique<EpisodeStatistics>(num_envs));
    } else if (wrapper.type == "normalize_observation") {
      if (evaluation_source) {
        const NormalizeObservation* source = evaluation_source->observations;
        if (!source) {
          throw std::logic_error("evaluation envs: the training envs normalize no observations");
        }
        transforms.push_back(std::make_unique<NormalizeObservation>(
            source->statistics(), source->clip(), source->epsilon(), false));
      } else {
        transforms.push_back(std::make_unique<NormalizeObservation>(
            std::make_shared<RunningMeanStd>(observation_size), wrapper.clip, wrapper.epsilon,
            true));
      }
    } else if (wrapper.type == "normalize_reward") {
      if (!evaluation_source) {
        transforms.push_back(
            std::make_unique<NormalizeReward>(std::make_shared<RunningMeanStd>(1), num_envs,
                                              wrapper.gamma, wrapper.clip, wrapper.epsilon, true));
      }
    }
  }
  return transforms;
}

std::unique_ptr<VectorEnv> build(const EnvOptions& options, int num_envs, int num_threads,
                                 std::uint64_t seed, const TrainingStatistics* evaluation_source) {
  check_wrappers(options.wrappers);
  if (num_envs < 1) {
    throw std::invalid_argument("env.num_envs is " + std::to_string(num_envs) + ", must be >= 1");
  }
  std::vector<std::unique_ptr<Env>> envs;
  envs.reserve(static_cast<std::size_t>(num_envs));
  for (int i = 0; i < num_envs; ++i) envs.push_back(make_env(options));
  const Space& observation_space = envs.front()->spec().observation_space;
  const auto observation_size = static_cast<std::size_t>(flat_size(observation_space));
  check_batch_wrappers_fit(options, observation_space);
  auto transforms = make_transforms(options, envs.size(), observation_size, evaluation_source);
  return std::make_unique<VectorEnv>(std::move(envs), seed, num_threads, std::move(transforms));
}

}  // namespace

void check_batch_wrappers_fit(const EnvOptions& options, const Space& observation_space) {
  if (element_dtype(observation_space) == Dtype::float32) return;
  for (const WrapperOptions& wrapper : options.wrappers) {
    if (wrapper.type == "normalize_observation") {
      throw std::invalid_argument(
          "env.wrappers: normalize_observation needs float32 observations, and " + options.id +
          " observes " + describe(observation_space) +
          " (remove it: uint8 observations reach the network scaled, 1/255 for images)");
    }
  }
}

std::unique_ptr<Env> make_env(const EnvOptions& options) {
  const Registry& registry = Registry::global();
  auto env = registry.make(options.id, options.kwargs, options.max_episode_steps);
  if (const std::string& plugin = registry.origin(options.id); !plugin.empty()) {
    env = std::make_unique<PluginEnvGuard>(std::move(env), plugin);
  }
  for (const WrapperOptions& wrapper : options.wrappers) {
    if (!wrapper.is_batch_wrapper()) env = wrap(std::move(env), wrapper);
  }
  return env;
}

std::unique_ptr<VectorEnv> make_vector_env(const EnvOptions& options, std::uint64_t seed) {
  return build(options, options.num_envs, options.num_threads, seed, nullptr);
}

std::unique_ptr<VectorEnv> make_evaluation_vector_env(const EnvOptions& options, int num_envs,
                                                      std::uint64_t seed,
                                                      const VectorEnv& training) {
  const TrainingStatistics source{training.find_transform<NormalizeObservation>()};
  return build(options, num_envs, 1, seed, &source);
}

}  // namespace mnrl::envs
