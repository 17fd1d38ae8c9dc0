#include "agents/dqn/return_distribution.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/log_softmax.h>
#include <ATen/ops/softmax.h>
#include <torch/utils.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "agents/dqn/distributional_losses.h"

namespace mnrl::agents {
namespace {

// [rows, K] of `values` [rows, num_actions, K] at `actions` [rows] (int64).
at::Tensor at_actions(const at::Tensor& values, const at::Tensor& actions) {
  const at::Tensor index = actions.view({-1, 1, 1}).expand({values.size(0), 1, values.size(2)});
  return values.gather(1, index).squeeze(1);
}

// The greedy next actions [rows]: argmax of the chooser's Q-values (the first of equal ones).
at::Tensor next_actions(const ReturnDistribution& kind, nn::QNetworkImpl& online,
                        nn::QNetworkImpl& target, const at::Tensor& next_observations,
                        bool double_q) {
  return kind.q_values(double_q ? online : target, next_observations).argmax(1);
}

class ExpectedReturn final : public ReturnDistribution {
 public:
  explicit ExpectedReturn(TdLoss loss) : loss_(loss) {}
  nn::QNetworkOptions network(nn::QNetworkOptions base) const override { return base; }
  at::Tensor q_values(nn::QNetworkImpl& network, const at::Tensor& observations) const override {
    return network.forward(observations);
  }
  TdLossTensors loss(nn::QNetworkImpl& online, nn::QNetworkImpl& target,
                     const TransitionTensors& batch, bool double_q) const override {
    return td_loss_tensors(online, target, batch, double_q, loss_);
  }
  void host_q_values(const float* outputs, std::int64_t rows, std::int64_t num_actions,
                     float* q) const override {
    std::copy_n(outputs, rows * num_actions, q);
  }
  HostLoss host_loss(const replay::TransitionBatch& batch, const float* online, const float* target,
                     const float* chooser, std::int64_t rows, std::int64_t num_actions,
                     float* gradients, float* td_errors) const override {
    std::vector<float> targets(static_cast<std::size_t>(rows));
    bootstrapped_targets(batch, target, chooser, rows, num_actions, targets.data());
    HostLoss out;
    out.loss =
        td_loss(batch, online, targets.data(), rows, num_actions, loss_, gradients, td_errors);
    for (std::int64_t i = 0; i < rows; ++i) {
      out.q_taken_sum += online[i * num_actions + static_cast<std::int64_t>(batch.actions[i])];
    }
    return out;
  }

 private:
  TdLoss loss_;
};

// The importance-weighted mean of per-row losses, the rows' priorities and Q-values.
TdLossTensors weighted(const at::Tensor& per_row, const at::Tensor& weights,
                       const at::Tensor& q_taken) {
  TdLossTensors out;
  out.loss = (weights * per_row).mean();
  out.td_errors = per_row.detach();
  out.q_taken_sum = q_taken.detach().sum();
  return out;
}

class Categorical final : public ReturnDistribution {
 public:
  explicit Categorical(const ReturnDistributionOptions& options) : options_(options) {}
  nn::QNetworkOptions network(nn::QNetworkOptions base) const override {
    return base.atoms(options_.atoms);
  }
  at::Tensor q_values(nn::QNetworkImpl& network, const at::Tensor& observations) const override {
    return mean(network.forward(observations));
  }
  TdLossTensors loss(nn::QNetworkImpl& online, nn::QNetworkImpl& target,
                     const TransitionTensors& batch, bool double_q) const override {
    at::Tensor projected;
    {
      torch::NoGradGuard no_grad;
      const at::Tensor next =
          at_actions(at::softmax(target.forward(batch.next_observations), -1),
                     next_actions(*this, online, target, batch.next_observations, double_q));
      projected = categorical_projection(batch.rewards, batch.bootstrap_discounts, next,
                                         options_.v_min, options_.v_max);
    }
    const at::Tensor logits = at_actions(online.forward(batch.observations), batch.actions);
    // The cross-entropy of the projected target, as C51 (its KL divergence up to a constant).
    const at::Tensor per_row = -(projected * at::log_softmax(logits, -1)).sum(-1);
    return weighted(per_row, batch.weights, mean(logits.unsqueeze(1)).squeeze(1));
  }
  void host_q_values(const float* outputs, std::int64_t rows, std::int64_t num_actions,
                     float* q) const override {
    categorical_means(outputs, layout(rows, num_actions), q);
  }
  HostLoss host_loss(const replay::TransitionBatch& batch, const float* online, const float* target,
                     const float* chooser, std::int64_t rows, std::int64_t num_actions,
                     float* gradients, float* td_errors) const override {
    std::vector<float> chooser_q(static_cast<std::size_t>(rows * num_actions));
    host_q_values(chooser, rows, num_actions, chooser_q.data());
    return categorical_host_loss(batch, online, target, chooser_q.data(), layout(rows, num_actions),
                                 gradients, td_errors);
  }

 private:
  AtomLayout layout(std::int64_t rows, std::int64_t num_actions) const {
    return {rows, num_actions, options_.atoms, options_.v_min, options_.v_max};
  }
  // [rows, A] expectations of logits [rows, A, K] on the support.
  at::Tensor mean(const at::Tensor& logits) const {
    const at::Tensor support =
        categorical_support(options_.atoms, options_.v_min, options_.v_max, logits.options());
    return (at::softmax(logits, -1) * support).sum(-1);
  }

  ReturnDistributionOptions options_;
};

// QR-DQN and IQN: quantiles against the quantiles of the bootstrapped target.
TdLossTensors quantile_loss(const at::Tensor& quantiles, const at::Tensor& next_quantiles,
                            const at::Tensor& fractions, const TransitionTensors& batch,
                            double kappa) {
  const at::Tensor targets = bootstrapped_target_tensors(
      batch.rewards.unsqueeze(1), batch.bootstrap_discounts.unsqueeze(1), next_quantiles);
  return weighted(quantile_huber_loss(quantiles, targets, fractions, kappa), batch.weights,
                  quantiles.mean(1));
}

class Quantiles final : public ReturnDistribution {
 public:
  explicit Quantiles(const ReturnDistributionOptions& options) : options_(options) {}
  nn::QNetworkOptions network(nn::QNetworkOptions base) const override {
    return base.atoms(options_.n_quantiles);
  }
  at::Tensor q_values(nn::QNetworkImpl& network, const at::Tensor& observations) const override {
    return network.forward(observations).mean(-1);
  }
  TdLossTensors loss(nn::QNetworkImpl& online, nn::QNetworkImpl& target,
                     const TransitionTensors& batch, bool double_q) const override {
    at::Tensor next;
    {
      torch::NoGradGuard no_grad;
      next = at_actions(target.forward(batch.next_observations),
                        next_actions(*this, online, target, batch.next_observations, double_q));
    }
    const at::Tensor quantiles = at_actions(online.forward(batch.observations), batch.actions);
    return quantile_loss(quantiles, next,
                         quantile_midpoints(options_.n_quantiles, quantiles.options()), batch,
                         options_.kappa);
  }
  void host_q_values(const float* outputs, std::int64_t rows, std::int64_t num_actions,
                     float* q) const override {
    quantile_means(outputs, {rows, num_actions, options_.n_quantiles}, q);
  }
  HostLoss host_loss(const replay::TransitionBatch& batch, const float* online, const float* target,
                     const float* chooser, std::int64_t rows, std::int64_t num_actions,
                     float* gradients, float* td_errors) const override {
    const AtomLayout layout{rows, num_actions, options_.n_quantiles};
    std::vector<float> chooser_q(static_cast<std::size_t>(rows * num_actions));
    quantile_means(chooser, layout, chooser_q.data());
    return quantile_host_loss(batch, online, target, chooser_q.data(), layout, options_.kappa,
                              gradients, td_errors);
  }

 private:
  ReturnDistributionOptions options_;
};

class ImplicitQuantiles final : public ReturnDistribution {
 public:
  explicit ImplicitQuantiles(const ReturnDistributionOptions& options) : options_(options) {}
  nn::QNetworkOptions network(nn::QNetworkOptions base) const override {
    return base.quantile_embedding(options_.quantile_embedding);
  }
  // The mean over K fixed fractions, the midpoints of K equal bins distorted by the risk
  // measure: a quadrature of the same integral IQN's K sampled fractions estimate, without
  // their noise, so that the greedy policy (and its export) is a function of the observation.
  at::Tensor q_values(nn::QNetworkImpl& network, const at::Tensor& observations) const override {
    const at::Tensor tau = distorted_fractions(
        quantile_midpoints(options_.policy_quantile_samples, observations.options()), options_.risk,
        options_.risk_eta);
    return network.forward(observations, tau.unsqueeze(0).expand({observations.size(0), -1}))
        .mean(-1);
  }
  TdLossTensors loss(nn::QNetworkImpl& online, nn::QNetworkImpl& target,
                     const TransitionTensors& batch, bool double_q) const override {
    at::Tensor next;
    {
      torch::NoGradGuard no_grad;
      next = at_actions(target.forward(batch.next_observations, batch.target_fractions),
                        next_actions(*this, online, target, batch.next_observations, double_q));
    }
    const at::Tensor quantiles =
        at_actions(online.forward(batch.observations, batch.fractions), batch.actions);
    return quantile_loss(quantiles, next, batch.fractions, batch, options_.kappa);
  }
  SampledFractions sampled_fractions() const override {
    return {options_.quantile_samples, options_.target_quantile_samples};
  }
  bool by_hand() const override { return false; }
  void host_q_values(const float*, std::int64_t, std::int64_t, float*) const override {
    throw std::logic_error("IQN has no hand-written path");
  }
  HostLoss host_loss(const replay::TransitionBatch&, const float*, const float*, const float*,
                     std::int64_t, std::int64_t, float*, float*) const override {
    throw std::logic_error("IQN has no hand-written path");
  }

 private:
  ReturnDistributionOptions options_;
};

}  // namespace

std::unique_ptr<ReturnDistribution> make_return_distribution(
    const ReturnDistributionOptions& options, TdLoss expected_loss) {
  if (options.distributional == "none") return std::make_unique<ExpectedReturn>(expected_loss);
  if (options.distributional == "c51") return std::make_unique<Categorical>(options);
  if (options.distributional == "qr") return std::make_unique<Quantiles>(options);
  if (options.distributional == "iqn") return std::make_unique<ImplicitQuantiles>(options);
  throw std::invalid_argument("unknown distributional '" + options.distributional + "'");
}

}  // namespace mnrl::agents
