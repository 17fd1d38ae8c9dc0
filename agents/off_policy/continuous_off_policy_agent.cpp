#include "agents/off_policy/continuous_off_policy_agent.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/cat.h>
#include <torch/utils.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "agents/schedule.h"
#include "core/rng.h"
#include "nn/policy_export.h"

namespace mnrl::agents {
namespace {

// What `make` returns, with LibTorch's CPU generator left as it was: a module made only to be
// overwritten draws initial weights, which would make a GPU run's saved generator differ from a
// CPU run's.
template <class Make>
auto without_drawing(const Make& make) {
  auto generator = at::detail::getDefaultCPUGenerator();
  at::Tensor state;
  {
    const std::lock_guard<std::mutex> lock(generator.mutex());
    state = generator.get_state();
  }
  auto made = make();  // draws, taking the generator's lock itself
  const std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
  return made;
}

}  // namespace

ContinuousOffPolicyAgent::ContinuousOffPolicyAgent(std::string tag, const OffPolicyOptions& options,
                                                   ActionBounds bounds, nn::ContinuousActor actor,
                                                   std::unique_ptr<replay::Replay> replay,
                                                   std::uint64_t seed, bool explore_at_warmup)
    : tag_(std::move(tag)),
      options_(options),
      bounds_(std::move(bounds)),
      trained_actor_(std::move(actor)),
      actor_(trained_actor_),
      replay_(std::move(replay)),
      num_envs_(replay_->options().num_envs),
      observation_size_(actor_->options.observation_size()),
      action_size_(actor_->options.action_size()),
      exploration_rng_(seed),
      replay_rng_(core::derive_seed(seed, 1)),
      last_observations_(replay_->options().observation_dtype, static_cast<std::size_t>(num_envs_),
                         static_cast<std::size_t>(observation_size_)),
      last_actions_(static_cast<std::size_t>(num_envs_ * action_size_)),
      min_replay_size_(options_.batch_size),
      explore_at_warmup_(explore_at_warmup) {
  if (!trained_actor_->parameters().front().is_cpu()) {
    actor_ = without_drawing([&] { return nn::ContinuousActor(trained_actor_->options); });
    acting_parameters_ = std::make_unique<nn::FlatParameters>(*actor_);
    refresh_acting_actor();
  }
}

void ContinuousOffPolicyAgent::refresh_acting_actor() {
  if (!acting_parameters_) return;
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> trained;
  for (const at::Tensor& p : trained_actor_->parameters()) trained.push_back(p.reshape({-1}));
  acting_parameters_->values().copy_(at::cat(trained));  // one copy to the host
}

bool ContinuousOffPolicyAgent::cuda_graphs_chosen() const {
  return agents::cuda_graphs_chosen(cuda_graphs_, trained_actor_->parameters().front().is_cpu(),
                                    average_gradients_ ? kGradientsAveragedBetween : nullptr);
}

const float* ContinuousOffPolicyAgent::network_input(core::ConstTypedPtr observations,
                                                     std::int64_t batch) {
  return core::as_floats(observations, static_cast<std::size_t>(batch * observation_size_),
                         input_floats_, replay_->options().byte_scale);
}

nn::ContinuousActorPass& ContinuousOffPolicyAgent::actor_pass_for(std::int64_t batch) {
  if (!actor_pass_ || actor_pass_->batch_size() != batch) {
    actor_pass_ = std::make_unique<nn::ContinuousActorPass>(actor_, batch);
  }
  return *actor_pass_;
}

const float* ContinuousOffPolicyAgent::deterministic_actions(const float* observations,
                                                             std::int64_t batch) {
  return actor_pass_for(batch).deterministic(observations);
}

void ContinuousOffPolicyAgent::to_bounds(const float* actions, std::int64_t rows,
                                         const ActionsOut& out) const {
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < action_size_; ++j) {
      const std::int64_t k = i * action_size_ + j;
      const float low = bounds_.low[static_cast<std::size_t>(j)];
      const float high = bounds_.high[static_cast<std::size_t>(j)];
      out.values[k] = std::clamp(low + 0.5f * (actions[k] + 1.0f) * (high - low), low, high);
    }
  }
}

void ContinuousOffPolicyAgent::act(core::ConstTypedPtr observations, const ActionsOut& out) {
  const auto count = static_cast<std::size_t>(num_envs_ * observation_size_);
  core::copy_elements(observations, count, last_observations_.data());
  if (env_steps_ < options_.learning_starts && !explore_at_warmup_) {
    for (float& a : last_actions_) a = static_cast<float>(exploration_rng_.uniform(-1.0, 1.0));
  } else {
    explore(core::as_floats(observations, count, input_floats_, replay_->options().byte_scale),
            last_actions_.data());
  }
  to_bounds(last_actions_.data(), num_envs_, out);
}

void ContinuousOffPolicyAgent::observe(const StepOutcome& outcome) {
  replay_->add_step(last_observations_.data(), last_actions_.data(), outcome.rewards,
                    outcome.next_observations, outcome.terminated, outcome.truncated,
                    outcome.final_observations);
  env_steps_ += num_envs_;
  ++vector_steps_;
  for (std::int64_t i = 0; i < num_envs_; ++i) {
    if (outcome.terminated[i] || outcome.truncated[i]) episode_ended(i);
  }
}

bool ContinuousOffPolicyAgent::update_ready() const {
  return env_steps_ > options_.learning_starts && vector_steps_ % options_.train_freq == 0 &&
         replay_->size() >= min_replay_size_;
}

Statistics ContinuousOffPolicyAgent::update(const TrainingProgress& progress) {
  struct Mean {
    std::string name;
    double sum = 0.0;
    int count = 0;
  };
  std::vector<Mean> means;
  const double learning_rate =
      scheduled(options_.learning_rate, options_.lr_schedule, progress.remaining());
  set_learning_rate(learning_rate);
  for (std::int64_t step = 0; step < options_.gradient_steps; ++step) {
    replay_->sample(replay_rng_, options_.batch_size, 1.0 - progress.remaining(), batch_);
    for (const auto& [name, value] : gradient_step(batch_)) {
      auto it =
          std::find_if(means.begin(), means.end(), [&](const Mean& m) { return m.name == name; });
      if (it == means.end()) it = means.insert(means.end(), Mean{name});
      it->sum += value;
      ++it->count;
    }
  }
  for (const auto& [name, value] : device_means()) means.push_back(Mean{name, value, 1});
  refresh_acting_actor();
  // This update covers the env steps since the last one, train_freq vector steps ago.
  const std::int64_t since = env_steps_ - options_.train_freq * num_envs_;
  if (env_steps_ / kStatisticsInterval == since / kStatisticsInterval) return {};
  Statistics statistics;
  for (const Mean& m : means) statistics.emplace_back(m.name, m.sum / m.count);
  statistics.emplace_back("charts/buffer_size", static_cast<double>(replay_->size()));
  statistics.emplace_back("charts/learning_rate", learning_rate);
  return statistics;
}

void ContinuousOffPolicyAgent::act_greedy(core::ConstTypedPtr observations, std::int64_t batch,
                                          const ActionsOut& out) {
  to_bounds(deterministic_actions(network_input(observations, batch), batch), batch, out);
}

void ContinuousOffPolicyAgent::act_stochastic(core::ConstTypedPtr observations, std::int64_t batch,
                                              const ActionsOut& out) {
  scratch_actions_.resize(static_cast<std::size_t>(batch * action_size_));
  sample_actions(network_input(observations, batch), batch, scratch_actions_.data());
  to_bounds(scratch_actions_.data(), batch, out);
}

// The subclass's learner (save_learner/load_learner) between the tag and the replay.
struct ContinuousOffPolicyAgent::LearnerState {
  ContinuousOffPolicyAgent& agent;
  void save_state(core::StateWriter& out) const { agent.save_learner(out); }
  void load_state(core::StateReader& in) { agent.load_learner(in); }
};

template <class Fields>
void ContinuousOffPolicyAgent::state_fields(Fields& fields) {
  fields.tag(tag_);
  fields(LearnerState{*this}, replay_, exploration_rng_, replay_rng_, env_steps_, vector_steps_);
}

void ContinuousOffPolicyAgent::save_state(core::StateWriter& out) const {
  core::save_fields(out, *this);
}

void ContinuousOffPolicyAgent::load_state(core::StateReader& in) {
  core::load_fields(in, *this);
  refresh_acting_actor();
  // Until load_replay(): the buffer restarts empty and refills as at the start of a run.
  min_replay_size_ =
      std::max(options_.batch_size, std::min(options_.learning_starts, options_.buffer_size));
}

void ContinuousOffPolicyAgent::save_replay(core::StateWriter& out) const {
  replay_->save_transitions(out);
}

void ContinuousOffPolicyAgent::load_replay(core::StateReader& in) {
  replay_->load_transitions(in);
  min_replay_size_ = options_.batch_size;
}

std::string ContinuousOffPolicyAgent::export_greedy_policy(
    const std::optional<nn::ObservationScale>& scale) const {
  nn::GreedyPolicy policy;
  policy.byte_scale = replay_->options().byte_scale;
  policy.observation_scale = scale;
  policy.trunk = actor_->trunk()->layers();
  policy.activation = actor_->options.activation();
  policy.head = actor_->mean_head();
  policy.output = nn::GreedyPolicy::Output::squashed;
  const auto& actor_options = actor_->options;
  if (actor_options.stochastic() && actor_options.state_dependent_noise()) {
    policy.head_clip = actor_options.clip_mean();
  }
  policy.low = bounds_.low;
  policy.high = bounds_.high;
  return nn::torchscript_policy(policy);
}

}  // namespace mnrl::agents
