#pragma once

#include <cstdint>
#include <string>

#include "replay/segment_tree.h"

namespace mnrl::core {
class Rng;
class StateReader;
class StateWriter;
}  // namespace mnrl::core

namespace mnrl::replay {

// Proportional prioritized replay (Schaul et al. 2016), as in OpenAI baselines and PFRL. Config
// keys are the field names prefixed with "per_" (per_alpha, ...).
struct PrioritizedReplayOptions {
  double alpha = 0.6;     // how strongly priorities shape sampling, in [0, 1] (0: uniform)
  double beta0 = 0.4;     // importance-sampling exponent at the start, in [0, 1]; annealed to 1
  double epsilon = 1e-6;  // added to |TD error| so that no item gets priority 0, > 0
};

// Throws std::invalid_argument naming the key (per_alpha, per_beta0, per_epsilon) of the first
// option out of range.
void validate(const PrioritizedReplayOptions& options);

// beta0 + (1 - beta0) * progress: linear from beta0 at progress 0 to 1 at progress 1; progress
// outside [0, 1] is clamped. Throws std::invalid_argument for beta0 outside [0, 1] or a NaN
// progress.
double annealed_beta(double beta0, double progress);

// The priorities of a replay's slots (transitions, or R2D2's sequences): a SumTree and a
// MinTree over the slots holding each one's sampling weight p^alpha, where p = |TD error| +
// epsilon (the priority). A new item gets the largest priority seen so far (1 at first), so it
// is likely drawn at least once before its TD error is known. The largest priority never
// decreases (as in baselines). Slots not yet filled weigh 0 and are never drawn. `owner` names
// the replay in error messages.
class Priorities {
 public:
  // Throws std::invalid_argument for invalid options (see validate) or a capacity < 1.
  Priorities(std::int64_t capacity, const PrioritizedReplayOptions& options, std::string owner);

  const PrioritizedReplayOptions& options() const { return options_; }
  double max_priority() const { return max_priority_; }
  double weight(std::int64_t slot) const { return sums_.get(slot); }  // p^alpha
  double total() const { return sums_.total(); }

  // A new item in `slot`: weight max_priority()^alpha.
  void add(std::int64_t slot);
  // `batch_size` slots drawn (with replacement) with probability P(i) = p_i^alpha / sum_k
  // p_k^alpha, stratified as in baselines: the total is cut into batch_size equal segments and
  // one uniform draw falls in each; their importance weights w_i = (N * P(i))^-beta / max_k
  // (N * P(k))^-beta, N the stored count, the maximum over the stored items (from the
  // MinTree): w_i = (q_i / q_min)^-beta for weights q = p^alpha, in (0, 1]. Throws
  // std::logic_error when nothing is stored, std::invalid_argument for a negative batch_size
  // or a beta outside [0, 1].
  void sample(core::Rng& rng, std::int64_t batch_size, double beta, std::int64_t* slots,
              float* weights) const;
  // Sets the priority of each slots[k] (< `stored`) to |td_errors[k]| + epsilon and raises
  // max_priority() to the largest of them; a slot listed twice keeps the last value. Checks
  // everything first and throws std::invalid_argument, changing nothing, for a negative count,
  // a slot outside [0, stored) or a non-finite TD error.
  void update(const std::int64_t* slots, const float* td_errors, std::int64_t count,
              std::int64_t stored);

  // The section "priorities": alpha, the largest priority and the `stored` first slots'
  // weights (doubles). load_state() restores them exactly (the other slots empty) and throws
  // core::StateError naming the source for weights that are not positive and finite or
  // priorities saved under another alpha.
  void save_state(core::StateWriter& out, std::int64_t stored) const;
  void load_state(core::StateReader& in, std::int64_t stored);

 private:
  void set_weight(std::int64_t slot, double weight);

  PrioritizedReplayOptions options_;
  std::string owner_;
  SumTree sums_;
  MinTree mins_;
  double max_priority_ = 1.0;
};

}  // namespace mnrl::replay
