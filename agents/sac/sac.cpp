#include "agents/sac/sac.h"

#include <torch/utils.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "nn/learning_rate.h"
#include "nn/tensor_state.h"

namespace mnrl::agents {
std::optional<EntropyCoefficient> parse_entropy_coefficient(const std::string& text) {
  const auto positive = [](const std::string& number) -> std::optional<double> {
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0' || !std::isfinite(value) || value <= 0) return std::nullopt;
    return value;
  };
  if (text == "auto") return EntropyCoefficient{true, 1.0};
  if (text.rfind("auto_", 0) == 0) {
    const auto initial = positive(text.substr(5));
    if (!initial) return std::nullopt;
    return EntropyCoefficient{true, *initial};
  }
  const auto fixed = positive(text);
  if (!fixed) return std::nullopt;
  return EntropyCoefficient{false, *fixed};
}

std::optional<double> parse_target_entropy(const std::string& text, std::int64_t action_size) {
  if (text == "auto") return -static_cast<double>(action_size);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value)) return std::nullopt;
  return value;
}

Sac::Sac(const SacOptions& options, ActionBounds bounds,
         std::shared_ptr<OffPolicyNetworks> networks,
         std::shared_ptr<nn::FlatParameters> parameters, std::unique_ptr<replay::Replay> replay,
         std::uint64_t seed, GradientPath path)
    : ContinuousOffPolicyAgent("sac", options.off_policy, std::move(bounds), networks->actor(),
                               std::move(replay), seed,
                               options.use_sde && options.use_sde_at_warmup),
      sac_(options),
      networks_(std::move(networks)),
      parameters_(std::move(parameters)),
      target_critics_(networks_->critics(), networks_->critics_range().of(parameters_->values())),
      noise_rng_(core::derive_seed(seed, 2)) {
  const std::int64_t batch_size = options.off_policy.batch_size;
  if (path == GradientPath::by_hand) {
    if (!parameters_->values().is_cpu()) {
      throw std::logic_error("Sac: the hand-written passes run on the CPU only");
    }
    by_hand_.reset(new ByHand{Critics(networks_->critics(), target_critics_, batch_size),
                              nn::ContinuousActorPass(networks_->actor(), batch_size),
                              nn::ContinuousActorPass(networks_->actor(), batch_size)});
  } else if (options.use_sde) {
    throw std::logic_error("Sac: gSDE's steps are hand-written only");
  }
  const double learning_rate = sac_.off_policy.learning_rate;
  critic_optimizer_ = adam_over(*parameters_, networks_->critics_range(), learning_rate);
  actor_optimizer_ = adam_over(*parameters_, networks_->actor_range(), learning_rate);
  const EntropyCoefficient coefficient = *parse_entropy_coefficient(sac_.ent_coef);
  if (coefficient.learned) {
    log_alpha_ = parameters_->segment(networks_->log_alpha_range().offset, 1);
    alpha_optimizer_ = adam_over(*parameters_, networks_->log_alpha_range(), learning_rate);
  } else {
    fixed_alpha_ = coefficient.initial;
  }
  target_entropy_ = *parse_target_entropy(sac_.target_entropy, action_size());
  const auto rows = static_cast<std::size_t>(sac_.off_policy.batch_size);
  noise_.resize(rows * static_cast<std::size_t>(action_size()));
  next_noise_.resize(noise_.size());
  action_gradients_.resize(noise_.size());
  targets_.resize(rows);
  log_prob_gradients_.resize(rows);
  if (sac_.use_sde) {
    const auto matrix =
        static_cast<std::size_t>(by_hand_->train_pass.latent_size() * action_size());
    train_weights_.resize(matrix);
    exploration_weights_.resize(matrix * static_cast<std::size_t>(num_envs()));
  }
}

void Sac::set_learning_rate(double learning_rate) {
  nn::set_learning_rate(*critic_optimizer_, learning_rate);
  nn::set_learning_rate(*actor_optimizer_, learning_rate);
  if (alpha_optimizer_) nn::set_learning_rate(*alpha_optimizer_, learning_rate);
}

std::vector<double> Sac::learning_rates() const {
  std::vector<double> rates{nn::learning_rate_of(*critic_optimizer_),
                            nn::learning_rate_of(*actor_optimizer_)};
  if (alpha_optimizer_) rates.push_back(nn::learning_rate_of(*alpha_optimizer_));
  return rates;
}

double Sac::alpha() const {
  // item(): log alpha may be on a GPU.
  return log_alpha_.defined() ? std::exp(static_cast<double>(log_alpha_.item<float>()))
                              : fixed_alpha_;
}

void Sac::draw(core::Rng& rng, std::vector<float>& noise) {
  for (float& x : noise) x = static_cast<float>(rng.normal());
}

void Sac::explore(const float* observations, float* actions) {
  if (!sac_.use_sde) {
    sample_actions(observations, num_envs(), actions);
    return;
  }
  // SB3 draws at the start of each collection of train_freq steps, and every sde_sample_freq
  // steps of it.
  const std::int64_t collected = vector_steps() % sac_.off_policy.train_freq;
  if (collected == 0 || (sac_.sde_sample_freq > 0 && collected % sac_.sde_sample_freq == 0)) {
    draw(exploration_rng(), exploration_weights_);
  }
  const float* sampled = actor_pass_for(num_envs())
                             .sample_state_dependent(observations, exploration_weights_.data(),
                                                     /*one_per_row=*/true);
  std::copy(sampled, sampled + num_envs() * action_size(), actions);
}

void Sac::sample_actions(const float* observations, std::int64_t batch, float* actions) {
  nn::ContinuousActorPass& pass = actor_pass_for(batch);
  const float* sampled = nullptr;
  if (sac_.use_sde) {
    // One fresh matrix for the whole batch, as SB3's predict() with a new draw.
    act_noise_.resize(static_cast<std::size_t>(pass.latent_size() * action_size()));
    draw(exploration_rng(), act_noise_);
    sampled = pass.sample_state_dependent(observations, act_noise_.data(), false);
  } else {
    act_noise_.resize(static_cast<std::size_t>(batch * action_size()));
    draw(exploration_rng(), act_noise_);
    sampled = pass.sample(observations, act_noise_.data());
  }
  std::copy(sampled, sampled + batch * action_size(), actions);
}

const float* Sac::sample(nn::ContinuousActorPass& pass, const float* observations,
                         const std::vector<float>& noise) {
  return sac_.use_sde ? pass.sample_state_dependent(observations, train_weights_.data(), false)
                      : pass.sample(observations, noise.data());
}

void Sac::compute_targets(const replay::TransitionBatch& batch, double alpha) {
  if (!sac_.use_sde) draw(noise_rng_, next_noise_);
  nn::ContinuousActorPass& next_pass = by_hand_->next_pass;
  const float* next_actions = sample(next_pass, batch.next_observations.data(), next_noise_);
  const float* next_log_probs = next_pass.log_probs();
  const float* next_q =
      by_hand_->critics.min_target_q(batch.next_observations.data(), next_actions);
  for (std::size_t b = 0; b < targets_.size(); ++b) {
    const float soft_value = next_q[b] - static_cast<float>(alpha) * next_log_probs[b];
    targets_[b] = batch.rewards[b] + (batch.terminated[b] ? 0.0f : batch.discounts[b] * soft_value);
  }
}

SacGradientSteps& Sac::autograd_steps() {
  if (autograd_steps_) return *autograd_steps_;
  autograd_steps_ = std::make_unique<SacGradientSteps>(
      *networks_, *parameters_, target_critics_,
      SacGradientSteps::Optimizers{*critic_optimizer_, *actor_optimizer_, alpha_optimizer_.get()},
      fixed_alpha_, target_entropy_, sac_.off_policy.tau, sac_.off_policy.batch_size,
      gradient_hook(), cuda_graphs_chosen(), cuda_graphs() == CudaGraphs::required);
  return *autograd_steps_;
}

Statistics Sac::gradient_step(const replay::TransitionBatch& batch) {
  if (by_hand_) return step_by_hand(batch);
  // The hand-written step's draws, in its order.
  draw(noise_rng_, noise_);
  draw(noise_rng_, next_noise_);
  const bool update_targets = ++gradient_steps_done_ % sac_.target_update_interval == 0;
  autograd_steps().step(batch, noise_.data(), next_noise_.data(), update_targets);
  return {};
}

Statistics Sac::device_means() {
  return autograd_steps_ ? autograd_steps_->take_means() : Statistics{};
}

Statistics Sac::step_by_hand(const replay::TransitionBatch& batch) {
  const auto rows = static_cast<double>(targets_.size());
  Critics& critics = by_hand_->critics;
  nn::ContinuousActorPass& train_pass = by_hand_->train_pass;
  draw(noise_rng_, sac_.use_sde ? train_weights_ : noise_);
  const float* actions_pi = sample(train_pass, batch.observations.data(), noise_);
  const float* log_probs = train_pass.log_probs();
  double mean_log_prob = 0.0;
  for (std::size_t b = 0; b < targets_.size(); ++b) mean_log_prob += log_probs[b];
  mean_log_prob /= rows;

  // SB3 takes alpha before its step and uses it for the targets and the actor loss; its
  // step may therefore wait until the actor's, which lets one all-reduce carry both.
  const double alpha = this->alpha();
  Statistics statistics;
  if (log_alpha_.defined()) {
    // loss = -log_alpha * mean(log pi + target_entropy), the log-densities held constant.
    const double slope = -(mean_log_prob + target_entropy_);
    log_alpha_.grad().fill_(slope);
    statistics.emplace_back("losses/alpha_loss", std::log(alpha) * slope);
  }

  compute_targets(batch, alpha);
  std::vector<double> losses, mean_q;
  critics.backward_td_loss(batch.observations.data(), batch.actions.data(), targets_.data(), 0.5f,
                           losses, mean_q);
  const auto critics_range = networks_->critics_range();
  average_gradients(critics_range.offset, critics_range.count);
  critic_optimizer_->step();

  // loss = mean(alpha log pi(a_pi|s) - min_i Q_i(s, a_pi)) under the updated critics.
  const double mean_q_pi =
      critics.action_gradient(batch.observations.data(), actions_pi, true,
                              static_cast<float>(-1.0 / rows), action_gradients_.data());
  std::fill(log_prob_gradients_.begin(), log_prob_gradients_.end(),
            static_cast<float>(alpha / rows));
  train_pass.backward(action_gradients_.data(), log_prob_gradients_.data());
  const auto actor_range = networks_->actor_range();
  average_gradients(actor_range.offset, actor_range.count + networks_->log_alpha_range().count);
  actor_optimizer_->step();
  if (alpha_optimizer_) alpha_optimizer_->step();

  if (++gradient_steps_done_ % sac_.target_update_interval == 0) {
    target_critics_.update(sac_.off_policy.tau);
  }
  statistics.insert(statistics.begin(),
                    {{"losses/qf1_values", mean_q[0]},
                     {"losses/qf2_values", mean_q[1]},
                     {"losses/qf1_loss", losses[0]},
                     {"losses/qf2_loss", losses[1]},
                     {"losses/qf_loss", 0.5 * (losses[0] + losses[1])},
                     {"losses/actor_loss", alpha * mean_log_prob - mean_q_pi},
                     {"losses/alpha", alpha}});
  return statistics;
}

template <class Fields>
void Sac::state_fields(Fields& fields) {
  fields(nn::tensor_values(parameters_->values()), nn::tensor_values(target_critics_.values()),
         nn::optimizer_state(*critic_optimizer_), nn::optimizer_state(*actor_optimizer_));
  if (alpha_optimizer_) fields(nn::optimizer_state(*alpha_optimizer_));
  fields(noise_rng_, gradient_steps_done_, exploration_weights_);
}

void Sac::save_learner(core::StateWriter& out) const { core::save_fields(out, *this); }

void Sac::load_learner(core::StateReader& in) {
  core::load_fields(in, *this);
  if (autograd_steps_) autograd_steps_->forget_captures();
}

}  // namespace mnrl::agents
