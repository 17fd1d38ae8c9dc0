#pragma once

#include <memory>
#include <vector>

#include "core/state_fields.h"
#include "envs/batch_transform.h"
#include "envs/running_mean_std.h"

namespace mnrl::envs {

// SB3's VecNormalize for rewards: each env keeps a discounted return G = gamma * G + r (reset
// to 0 when its episode ends); the rewards are divided by the running std of G across all envs
// and steps and clipped to [-clip, clip]. The mean is not subtracted, so the sign of a reward
// is kept.
class NormalizeReward final : public BatchTransform {
 public:
  // With `update` false the statistics are only read.
  NormalizeReward(std::shared_ptr<RunningMeanStd> statistics, std::size_t num_envs, double gamma,
                  double clip, double epsilon, bool update);

  void on_reset(const Batch& batch) override;
  void on_step(const Batch& batch) override;
  // The statistics (shared, as NormalizeObservation's) and each env's discounted return.
  void save_state(core::StateWriter& out) const override;
  void load_state(core::StateReader& in) override;

  const std::shared_ptr<RunningMeanStd>& statistics() const { return statistics_; }

 private:
  std::shared_ptr<RunningMeanStd> statistics_;  // of the discounted returns: one value
  std::vector<double> returns_;
  double gamma_, clip_, epsilon_;
  bool update_;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields.tag("normalize_reward");
    fields(statistics_, returns_);
  }
};

}  // namespace mnrl::envs
