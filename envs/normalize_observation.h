#pragma once

#include <memory>
#include <vector>

#include "core/state_fields.h"
#include "envs/batch_transform.h"
#include "envs/running_mean_std.h"

namespace mnrl::envs {

// SB3's VecNormalize for observations: each value becomes (x - mean) / sqrt(var + epsilon),
// clipped to [-clip, clip], with running statistics over every observation the envs returned
// (first observations of episodes included). Final observations of ended episodes are
// normalized the same way, so bootstrapping sees what the policy sees.
class NormalizeObservation final : public BatchTransform {
 public:
  // With `update` false the statistics are only read: evaluation envs share the training
  // envs' statistics this way (SB3's training=False).
  NormalizeObservation(std::shared_ptr<RunningMeanStd> statistics, double clip, double epsilon,
                       bool update);

  void on_reset(const Batch& batch) override;
  void on_step(const Batch& batch) override;
  // The statistics, shared with evaluation envs (which see the loaded values too).
  void save_state(core::StateWriter& out) const override;
  void load_state(core::StateReader& in) override;

  const std::shared_ptr<RunningMeanStd>& statistics() const { return statistics_; }
  double clip() const { return clip_; }
  double epsilon() const { return epsilon_; }

 private:
  void refresh_scale();
  void normalize(float* row) const;

  std::shared_ptr<RunningMeanStd> statistics_;
  double clip_, epsilon_;
  bool update_;
  std::vector<double> std_;  // sqrt(var + epsilon), refreshed after each update

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields.tag("normalize_observation");
    fields(statistics_);
  }
};

}  // namespace mnrl::envs
