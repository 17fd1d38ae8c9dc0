#include "agents/dqn/distributional_arithmetic.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "agents/dqn/q_learning.h"

namespace mnrl::agents {
namespace {

// Softmax of n logits into `p` (max subtracted first, as LibTorch's).
void softmax(const float* logits, std::int64_t n, double* p) {
  const float largest = *std::max_element(logits, logits + n);
  double sum = 0.0;
  for (std::int64_t k = 0; k < n; ++k)
    sum += p[k] = std::exp(static_cast<double>(logits[k] - largest));
  for (std::int64_t k = 0; k < n; ++k) p[k] /= sum;
}

double atom_value(const AtomLayout& layout, std::int64_t k) {
  return layout.v_min + static_cast<double>(k) * (layout.v_max - layout.v_min) /
                            static_cast<double>(layout.atoms - 1);
}

// Row i's bootstrap factor: 0 where the episode terminated.
float bootstrap_discount(const replay::TransitionBatch& batch, std::int64_t i) {
  return batch.terminated[i] ? 0.0f : batch.discounts[i];
}

}  // namespace

void categorical_means(const float* logits, const AtomLayout& layout, float* q) {
  std::vector<double> p(static_cast<std::size_t>(layout.atoms));
  for (std::int64_t j = 0; j < layout.rows * layout.num_actions; ++j) {
    softmax(logits + j * layout.atoms, layout.atoms, p.data());
    double mean = 0.0;
    for (std::int64_t k = 0; k < layout.atoms; ++k) mean += p[k] * atom_value(layout, k);
    q[j] = static_cast<float>(mean);
  }
}

void quantile_means(const float* quantiles, const AtomLayout& layout, float* q) {
  for (std::int64_t j = 0; j < layout.rows * layout.num_actions; ++j) {
    double sum = 0.0;
    for (std::int64_t k = 0; k < layout.atoms; ++k) sum += quantiles[j * layout.atoms + k];
    q[j] = static_cast<float>(sum / static_cast<double>(layout.atoms));
  }
}

HostLoss categorical_host_loss(const replay::TransitionBatch& batch, const float* logits,
                               const float* target_logits, const float* chooser_q,
                               const AtomLayout& layout, float* gradients, float* td_errors) {
  const std::int64_t n = layout.num_actions, atoms = layout.atoms;
  const double delta = (layout.v_max - layout.v_min) / static_cast<double>(atoms - 1);
  std::fill(gradients, gradients + layout.rows * n * atoms, 0.0f);
  std::vector<double> next(static_cast<std::size_t>(atoms)), projected(next.size()), p(next.size());
  HostLoss out;
  for (std::int64_t i = 0; i < layout.rows; ++i) {
    const std::int64_t best = argmax(chooser_q + i * n, n);
    softmax(target_logits + (i * n + best) * atoms, atoms, next.data());
    std::fill(projected.begin(), projected.end(), 0.0);
    const double discount = bootstrap_discount(batch, i);
    // Each landed atom split between its two neighbours (the paper's algorithm 1; the same
    // shares as the tensor form's clamp(1 - |landed - z_k| / dz, 0, 1), in O(atoms)).
    for (std::int64_t j = 0; j < atoms; ++j) {
      const double landed = std::clamp(batch.rewards[i] + discount * atom_value(layout, j),
                                       layout.v_min, layout.v_max);
      const double b = (landed - layout.v_min) / delta;
      const auto lower = std::min(static_cast<std::int64_t>(std::floor(b)), atoms - 1);
      const double upper_share = b - static_cast<double>(lower);
      projected[lower] += (1.0 - upper_share) * next[j];
      if (upper_share > 0) projected[lower + 1] += upper_share * next[j];
    }
    const auto action = static_cast<std::int64_t>(batch.actions[i]);
    const float* row = logits + (i * n + action) * atoms;
    softmax(row, atoms, p.data());
    // log p_k = z_k - logsumexp(z); d (-sum_k m_k log p_k) / d z_k = p_k sum(m) - m_k.
    const float largest = *std::max_element(row, row + atoms);
    double exp_sum = 0.0, mass = 0.0, cross_entropy = 0.0, mean = 0.0;
    for (std::int64_t k = 0; k < atoms; ++k) {
      exp_sum += std::exp(static_cast<double>(row[k] - largest));
      mass += projected[k];
    }
    const double log_sum = largest + std::log(exp_sum);
    float* gradient = gradients + (i * n + action) * atoms;
    const double scale = batch.weights[i] / static_cast<double>(layout.rows);
    for (std::int64_t k = 0; k < atoms; ++k) {
      cross_entropy -= projected[k] * (row[k] - log_sum);
      mean += p[k] * atom_value(layout, k);
      gradient[k] = static_cast<float>(scale * (p[k] * mass - projected[k]));
    }
    td_errors[i] = static_cast<float>(cross_entropy);
    out.loss += batch.weights[i] * cross_entropy;
    out.q_taken_sum += mean;
  }
  out.loss /= static_cast<double>(layout.rows);
  return out;
}

HostLoss quantile_host_loss(const replay::TransitionBatch& batch, const float* quantiles,
                            const float* target_quantiles, const float* chooser_q,
                            const AtomLayout& layout, double kappa, float* gradients,
                            float* td_errors) {
  const std::int64_t n = layout.num_actions, atoms = layout.atoms;
  std::fill(gradients, gradients + layout.rows * n * atoms, 0.0f);
  std::vector<double> targets(static_cast<std::size_t>(atoms));
  HostLoss out;
  for (std::int64_t i = 0; i < layout.rows; ++i) {
    const std::int64_t best = argmax(chooser_q + i * n, n);
    const float* next = target_quantiles + (i * n + best) * atoms;
    const float discount = bootstrap_discount(batch, i);
    // As bootstrapped_target_tensors: a terminated row takes the reward alone.
    for (std::int64_t j = 0; j < atoms; ++j) {
      targets[j] = batch.rewards[i] + (discount > 0 ? discount * next[j] : 0.0f);
    }
    const auto action = static_cast<std::int64_t>(batch.actions[i]);
    const float* theta = quantiles + (i * n + action) * atoms;
    float* gradient = gradients + (i * n + action) * atoms;
    const double scale = batch.weights[i] / static_cast<double>(layout.rows);
    double row_loss = 0.0, sum = 0.0;
    for (std::int64_t q = 0; q < atoms; ++q) {
      const double tau = (2.0 * static_cast<double>(q) + 1.0) / (2.0 * static_cast<double>(atoms));
      double loss = 0.0, slope = 0.0;
      for (std::int64_t j = 0; j < atoms; ++j) {
        // u = target - theta: rho(u) = |tau - 1{u < 0}| L_kappa(u) / kappa, d rho / d theta =
        // -|tau - 1{u < 0}| L'_kappa(u) / kappa.
        const double u = targets[j] - theta[q];
        const double weight = std::abs(tau - (u < 0 ? 1.0 : 0.0));
        const double magnitude = std::abs(u);
        loss += weight * (magnitude <= kappa ? 0.5 * u * u : kappa * (magnitude - 0.5 * kappa));
        slope -= weight * std::clamp(u, -kappa, kappa);
      }
      row_loss += loss / (kappa * static_cast<double>(atoms));
      gradient[q] = static_cast<float>(scale * slope / (kappa * static_cast<double>(atoms)));
      sum += theta[q];
    }
    td_errors[i] = static_cast<float>(row_loss);
    out.loss += batch.weights[i] * row_loss;
    out.q_taken_sum += sum / static_cast<double>(atoms);
  }
  out.loss /= static_cast<double>(layout.rows);
  return out;
}

}  // namespace mnrl::agents
