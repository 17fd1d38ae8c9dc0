#include "reinforce.h"

#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/linear.h>
#include <torch/torch.h>

#include <algorithm>
#include <variant>

#include "agents/registry.h"
#include "envs/space.h"
#include "nn/tensor_state.h"

namespace reinforce {
namespace {

using mnrl::agents::ActionsOut;

at::Tensor from_floats(const float* values, std::int64_t rows, std::int64_t columns) {
  return torch::from_blob(const_cast<float*>(values), {rows, columns}, torch::kFloat).clone();
}

void write_actions(const at::Tensor& actions, const ActionsOut& out) {
  const at::Tensor flat = actions.to(torch::kInt64).contiguous();
  std::copy_n(flat.data_ptr<std::int64_t>(), flat.numel(), out.indices);
}

// A vector of any length, its length first.
template <class T>
void save_vector(mnrl::core::StateWriter& out, const std::vector<T>& values) {
  out.value(static_cast<std::uint64_t>(values.size()));
  out.values(values);
}
template <class T>
void load_vector(mnrl::core::StateReader& in, std::vector<T>& values) {
  const auto size = in.value<std::uint64_t>();
  if (size > in.remaining() / sizeof(T)) in.fail("a vector longer than the state");
  values.resize(size);
  in.values(values);
}

}  // namespace

Reinforce::Reinforce(const ReinforceOptions& options, const mnrl::agents::AgentSetup& setup)
    : options_(options),
      observation_size_(mnrl::envs::flat_size(setup.spec.observation_space)),
      running_(static_cast<std::size_t>(setup.num_envs)) {
  std::int64_t inputs = observation_size_;
  for (const std::int64_t width : setup.network.hidden_sizes) {
    policy_->push_back(torch::nn::Linear(inputs, width));
    policy_->push_back(torch::nn::Tanh());
    inputs = width;
  }
  policy_->push_back(
      torch::nn::Linear(inputs, std::get<mnrl::envs::Discrete>(setup.spec.action_space).n));
  parameters_ = std::make_unique<mnrl::nn::FlatParameters>(*policy_);
  optimizer_ =
      std::make_unique<torch::optim::Adam>(std::vector<at::Tensor>{parameters_->values()},
                                           torch::optim::AdamOptions(options.learning_rate));
}

at::Tensor Reinforce::logits(const float* observations, std::int64_t batch) {
  return policy_->forward(from_floats(observations, batch, observation_size_));
}

void Reinforce::act(mnrl::core::ConstTypedPtr typed_observations, const ActionsOut& out) {
  torch::NoGradGuard no_grad;
  const float* observations = typed_observations.floats();  // setup refused uint8 spaces
  const auto envs = static_cast<std::int64_t>(running_.size());
  const at::Tensor probabilities = torch::softmax(logits(observations, envs), 1);
  const at::Tensor actions = torch::multinomial(probabilities, 1);
  const at::Tensor log_probs = probabilities.gather(1, actions).log().contiguous();
  write_actions(actions.squeeze(1), out);
  for (std::size_t i = 0; i < running_.size(); ++i) {
    const float* row = observations + static_cast<std::int64_t>(i) * observation_size_;
    running_[i].observations.insert(running_[i].observations.end(), row, row + observation_size_);
    running_[i].actions.push_back(out.indices[i]);
    running_[i].log_probs.push_back(log_probs.data_ptr<float>()[i]);
  }
}

void Reinforce::observe(const mnrl::agents::StepOutcome& outcome) {
  for (std::size_t i = 0; i < running_.size(); ++i) {
    Steps& episode = running_[i];
    episode.rewards.push_back(outcome.rewards[i]);
    if (!outcome.terminated[i] && !outcome.truncated[i]) continue;
    // Returns-to-go; a truncated episode is cut short as if it had ended (plain REINFORCE).
    double to_go = 0.0;
    for (std::size_t t = episode.rewards.size(); t-- > 0;) {
      to_go = episode.rewards[t] + options_.gamma * to_go;
      episode.rewards[t] = static_cast<float>(to_go);
    }
    finished_.observations.insert(finished_.observations.end(), episode.observations.begin(),
                                  episode.observations.end());
    finished_.actions.insert(finished_.actions.end(), episode.actions.begin(),
                             episode.actions.end());
    finished_.log_probs.insert(finished_.log_probs.end(), episode.log_probs.begin(),
                               episode.log_probs.end());
    finished_.rewards.insert(finished_.rewards.end(), episode.rewards.begin(),
                             episode.rewards.end());
    finished_lengths_.push_back(static_cast<std::int64_t>(episode.actions.size()));
    episode = Steps();
    ++finished_episodes_;
  }
}

bool Reinforce::update_ready() const { return finished_episodes_ >= options_.episodes_per_update; }

mnrl::agents::Statistics Reinforce::update(const mnrl::agents::TrainingProgress&) {
  const auto steps = static_cast<std::int64_t>(finished_.actions.size());
  const at::Tensor log_probabilities =
      torch::log_softmax(logits(finished_.observations.data(), steps), 1);
  const at::Tensor actions = torch::from_blob(finished_.actions.data(), {steps, 1}, torch::kInt64);
  const at::Tensor returns = from_floats(finished_.rewards.data(), steps, 1);
  const at::Tensor advantages = (returns - returns.mean()) / (returns.std() + 1e-8);
  at::Tensor taken = log_probabilities.gather(1, actions);
  if (weighs_by_behavior_) {
    const at::Tensor behavior = from_floats(finished_.log_probs.data(), steps, 1);
    taken = (taken.detach() - behavior).exp().clamp_max(1.0) * taken;
  }
  const at::Tensor policy_loss = -(taken * advantages).mean();
  const at::Tensor entropy = -(log_probabilities.exp() * log_probabilities).sum(1).mean().detach();
  parameters_->zero_grad();
  policy_loss.backward();
  optimizer_->step();
  finished_ = Steps();
  finished_lengths_.clear();
  finished_episodes_ = 0;
  return {{"losses/policy_loss", policy_loss.item<double>()},
          {"losses/entropy", entropy.item<double>()}};
}

void Reinforce::take_finished_steps(std::int64_t steps, float* payload) {
  const auto width = static_cast<std::size_t>(observation_size_);
  std::size_t episode = 0;  // in finished_lengths_
  std::int64_t into_episode = 0;
  for (std::int64_t t = 0; t < steps; ++t, payload += width + 4) {
    const auto row = static_cast<std::size_t>(t);
    std::copy_n(finished_.observations.begin() + static_cast<std::ptrdiff_t>(row * width), width,
                payload);
    payload[width] = static_cast<float>(finished_.actions[row]);
    payload[width + 1] = finished_.log_probs[row];
    payload[width + 2] = finished_.rewards[row];
    const bool last = ++into_episode == finished_lengths_[episode];
    payload[width + 3] = last ? 1.0f : 0.0f;
    if (last) {
      ++episode;
      into_episode = 0;
    }
  }
  // What stays: the episodes not sent, the first of them cut where the message ended.
  finished_lengths_.erase(finished_lengths_.begin(),
                          finished_lengths_.begin() + static_cast<std::ptrdiff_t>(episode));
  if (into_episode > 0) finished_lengths_.front() -= into_episode;
  const auto taken = static_cast<std::ptrdiff_t>(steps);
  finished_.observations.erase(
      finished_.observations.begin(),
      finished_.observations.begin() + taken * static_cast<std::ptrdiff_t>(width));
  finished_.actions.erase(finished_.actions.begin(), finished_.actions.begin() + taken);
  finished_.log_probs.erase(finished_.log_probs.begin(), finished_.log_probs.begin() + taken);
  finished_.rewards.erase(finished_.rewards.begin(), finished_.rewards.begin() + taken);
}

std::int64_t Reinforce::take_whole_episodes(const float* rows, std::int64_t count) {
  weighs_by_behavior_ = true;
  const auto width = static_cast<std::size_t>(observation_size_);
  std::int64_t taken = 0, length = 0;
  for (std::int64_t t = 0; t < count; ++t) {
    const float* row = rows + static_cast<std::size_t>(t) * (width + 4);
    ++length;
    if (row[width + 3] == 0.0f) continue;
    for (const float* step = row - (length - 1) * static_cast<std::int64_t>(width + 4);
         step <= row; step += width + 4) {
      finished_.observations.insert(finished_.observations.end(), step, step + width);
      finished_.actions.push_back(static_cast<std::int64_t>(step[width]));
      finished_.log_probs.push_back(step[width + 1]);
      finished_.rewards.push_back(step[width + 2]);
    }
    finished_lengths_.push_back(length);
    ++finished_episodes_;
    taken = t + 1;
    length = 0;
  }
  return taken;
}

void Reinforce::act_greedy(mnrl::core::ConstTypedPtr observations, std::int64_t batch,
                           const ActionsOut& out) {
  torch::NoGradGuard no_grad;
  write_actions(logits(observations.floats(), batch).argmax(1), out);
}

void Reinforce::act_stochastic(mnrl::core::ConstTypedPtr observations, std::int64_t batch,
                               const ActionsOut& out) {
  torch::NoGradGuard no_grad;
  write_actions(
      torch::multinomial(torch::softmax(logits(observations.floats(), batch), 1), 1).squeeze(1),
      out);
}

void Reinforce::save_state(mnrl::core::StateWriter& out) const {
  out.tag("reinforce");
  mnrl::nn::save_tensor(out, parameters_->values());
  mnrl::nn::save_optimizer(out, *optimizer_);
  out.value(finished_episodes_);
  save_vector(out, finished_lengths_);
  out.value(static_cast<std::uint64_t>(running_.size()));
  for (const Steps* steps : all_steps()) {
    save_vector(out, steps->observations);
    save_vector(out, steps->actions);
    save_vector(out, steps->log_probs);
    save_vector(out, steps->rewards);
  }
}

void Reinforce::load_state(mnrl::core::StateReader& in) {
  in.expect_tag("reinforce");
  mnrl::nn::load_tensor(in, parameters_->values());
  mnrl::nn::load_optimizer(in, *optimizer_);
  in.value(finished_episodes_);
  load_vector(in, finished_lengths_);
  if (in.value<std::uint64_t>() != running_.size()) in.fail("another number of envs");
  for (Steps* steps : all_steps()) {
    load_vector(in, steps->observations);
    load_vector(in, steps->actions);
    load_vector(in, steps->log_probs);
    load_vector(in, steps->rewards);
  }
}

std::vector<Reinforce::Steps*> Reinforce::all_steps() const {
  auto* self = const_cast<Reinforce*>(this);
  std::vector<Steps*> all{&self->finished_};
  for (Steps& episode : self->running_) all.push_back(&episode);
  return all;
}

namespace {

// Everything mnrl needs to know about the algorithm besides its agent.
class ReinforceAlgorithm final : public mnrl::agents::AlgorithmOf<ReinforceOptions> {
 public:
  std::string summary() const override { return "REINFORCE hyperparameters (algo: reinforce)"; }
  // Its own, registered in reinforce_actors.cpp.
  std::string topology() const override { return "reinforce_actors"; }

 protected:
  void check_options(const ReinforceOptions&,
                     const mnrl::agents::AgentCheck& check) const override {
    if (!mnrl::envs::is_discrete(check.spec.action_space)) {
      throw check.document.error_at("algo", "algo: reinforce needs Discrete actions; '" +
                                                check.env.id + "' has " +
                                                mnrl::envs::describe(check.spec.action_space));
    }
    if (mnrl::envs::element_dtype(check.spec.observation_space) != mnrl::core::Dtype::float32) {
      throw check.document.error_at("algo", "algo: reinforce takes float32 observations; '" +
                                                check.env.id + "' has " +
                                                mnrl::envs::describe(check.spec.observation_space));
    }
  }
  std::unique_ptr<mnrl::agents::Agent> make(const ReinforceOptions& options,
                                            const mnrl::agents::AgentSetup& setup) const override {
    return std::make_unique<Reinforce>(options, setup);
  }
  void scale(ReinforceOptions& options, double factor) const override {
    options.learning_rate *= factor;
  }
  mnrl::agents::StoredTransitions stored(const ReinforceOptions& options,
                                         std::int64_t num_envs) const override {
    // About episodes_per_update + num_envs episodes of up to 1000 steps at once.
    return {"reinforce.episodes_per_update",
            1000.0 * static_cast<double>(options.episodes_per_update + num_envs)};
  }
};

}  // namespace

MNRL_REGISTER_AGENT("reinforce", ReinforceAlgorithm);

}  // namespace reinforce
