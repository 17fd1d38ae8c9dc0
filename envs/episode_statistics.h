#pragma once

#include <cstdint>
#include <vector>

#include "core/state_fields.h"
#include "envs/batch_transform.h"

namespace mnrl::envs {

// Gymnasium's RecordEpisodeStatistics for a whole batch: the undiscounted return and the length
// of each episode, counted from the rewards as they are at this transform's place in the chain
// (first by default: the env's own rewards, before any normalization).
class EpisodeStatistics final : public BatchTransform {
 public:
  explicit EpisodeStatistics(std::size_t num_envs);

  void on_reset(const Batch& batch) override;
  void on_step(const Batch& batch) override;
  void save_state(core::StateWriter& out) const override;
  void load_state(core::StateReader& in) override;

  // Return and length of the episode that ended at the last step in env i (meaningful only
  // where it ended).
  const double* returns() const { return finished_returns_.data(); }
  const std::int64_t* lengths() const { return finished_lengths_.data(); }

 private:
  std::vector<double> running_returns_, finished_returns_;
  std::vector<std::int64_t> running_lengths_, finished_lengths_;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields.tag("episode_statistics");
    fields(running_returns_, running_lengths_);
  }
};

}  // namespace mnrl::envs
