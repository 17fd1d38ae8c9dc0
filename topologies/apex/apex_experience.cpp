#include "topologies/apex/apex_experience.h"

#include <vector>

#include "agents/dqn/dqn.h"
#include "agents/r2d2/r2d2.h"
#include "envs/space.h"
#include "replay/transition_rows.h"

namespace mnrl::topologies {
namespace {

// Ape-X DQN's items: n-step transitions (replay::TransitionRows). An actor's Dqn hands each
// transition to the rows instead of its replay.
class Transitions final : public ApexExperience {
 public:
  Transitions(agents::Dqn& dqn, const envs::EnvSpec& spec, bool actor)
      : dqn_(dqn),
        observation_size_(envs::flat_size(spec.observation_space)),
        byte_scale_(envs::byte_scale(spec.observation_space)),
        dtype_(envs::element_dtype(spec.observation_space)),
        rows_(observation_size_, 1) {
    if (actor) {
      dqn_.divert_transitions(
          [this](const replay::Transition& transition) { rows_.append(transition); });
    }
  }

  at::Tensor parameters() const override { return dqn_.parameters(); }
  std::int64_t item_floats() const override { return rows_.row_floats(); }
  void explore_with(double epsilon) override { dqn_.fix_epsilon(epsilon); }
  std::int64_t items_waiting() const override { return rows_.rows(); }

  void take(std::int64_t count, float* out) override {
    rows_.gather(count, byte_scale_, batch_);
    priorities_.resize(static_cast<std::size_t>(count));
    dqn_.measure_td_errors(batch_, priorities_.data());
    rows_.take(count, priorities_.data(), out);
  }

  std::int64_t replay_size() const override { return dqn_.replay_size(); }

  void add(const float* items, std::int64_t count) override {
    replay::for_each_transition(items, count, observation_size_, 1, dtype_,
                                [&](const replay::Transition& transition, float priority) {
                                  dqn_.add_transition(transition, priority);
                                });
  }

 private:
  agents::Dqn& dqn_;
  std::int64_t observation_size_;
  float byte_scale_;
  core::Dtype dtype_;
  replay::TransitionRows rows_;
  replay::TransitionBatch batch_;
  std::vector<float> priorities_;
};

// R2D2's items: sequences (replay::SequenceReplay::pack). An actor's replay is its outbox.
class Sequences final : public ApexExperience {
 public:
  explicit Sequences(agents::R2d2& r2d2) : r2d2_(r2d2) {}

  at::Tensor parameters() const override { return r2d2_.parameters(); }
  std::int64_t item_floats() const override { return r2d2_.sequence_floats(); }
  void explore_with(double epsilon) override { r2d2_.fix_epsilon(epsilon); }
  std::int64_t items_waiting() const override { return r2d2_.sequences_waiting(); }
  void take(std::int64_t count, float* out) override { r2d2_.take_sequences(count, out); }
  std::int64_t replay_size() const override { return r2d2_.replay_size(); }
  void add(const float* items, std::int64_t count) override { r2d2_.add_sequences(items, count); }

 private:
  agents::R2d2& r2d2_;
};

}  // namespace

std::unique_ptr<ApexExperience> transitions_of(agents::Dqn& dqn, const envs::EnvSpec& spec,
                                               bool actor) {
  return std::make_unique<Transitions>(dqn, spec, actor);
}

std::unique_ptr<ApexExperience> sequences_of(agents::R2d2& r2d2) {
  return std::make_unique<Sequences>(r2d2);
}

}  // namespace mnrl::topologies
