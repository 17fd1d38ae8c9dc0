#include "replay/replay.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace mnrl::replay {

// Where transitions are kept and drawn from: a uniform ReplayBuffer or a PrioritizedReplayBuffer
// (replay.cpp holds the two).
class TransitionStore {
 public:
  virtual ~TransitionStore() = default;
  virtual std::int64_t size() const = 0;
  // Stores the transition; returns its slot.
  virtual std::int64_t add(const Transition& transition) = 0;
  // `progress` (0 -> 1 over training) anneals prioritized replay's importance exponent.
  virtual void sample(core::Rng& rng, std::int64_t batch_size, double progress,
                      TransitionBatch& out) = 0;
  virtual void update_priorities(const std::int64_t* slots, const float* td_errors,
                                 std::int64_t count) = 0;
  virtual void save_state(core::StateWriter& out) const = 0;
  // Replaces the contents with those save_state() wrote (see the buffers' load_state()).
  virtual void load_state(core::StateReader& in) = 0;
};

namespace {

class UniformStore final : public TransitionStore {
 public:
  explicit UniformStore(const ReplayOptions& o)
      : buffer_(o.capacity, o.observation_size, o.action_size, o.observation_dtype, o.byte_scale) {}

  std::int64_t size() const override { return buffer_.size(); }
  std::int64_t add(const Transition& transition) override { return buffer_.add(transition); }
  void sample(core::Rng& rng, std::int64_t batch_size, double, TransitionBatch& out) override {
    buffer_.sample(rng, batch_size, out);
  }
  void update_priorities(const std::int64_t*, const float*, std::int64_t) override {}
  void save_state(core::StateWriter& out) const override { buffer_.save_state(out); }
  void load_state(core::StateReader& in) override { buffer_.load_state(in); }

 private:
  ReplayBuffer buffer_;
};

class PrioritizedStore final : public TransitionStore {
 public:
  explicit PrioritizedStore(const ReplayOptions& o)
      : options_(o),
        buffer_(o.capacity, o.observation_size, o.action_size, o.per, o.observation_dtype,
                o.byte_scale) {}

  std::int64_t size() const override { return buffer_.size(); }
  std::int64_t add(const Transition& transition) override { return buffer_.add(transition); }
  void sample(core::Rng& rng, std::int64_t batch_size, double progress,
              TransitionBatch& out) override {
    buffer_.sample(rng, batch_size, annealed_beta(options_.per.beta0, progress), out);
  }
  void update_priorities(const std::int64_t* slots, const float* td_errors,
                         std::int64_t count) override {
    buffer_.update_priorities(slots, td_errors, count);
  }
  void save_state(core::StateWriter& out) const override { buffer_.save_state(out); }
  void load_state(core::StateReader& in) override { buffer_.load_state(in); }

 private:
  ReplayOptions options_;
  PrioritizedReplayBuffer buffer_;
};

std::unique_ptr<TransitionStore> make_store(const ReplayOptions& options) {
  if (options.prioritized) return std::make_unique<PrioritizedStore>(options);
  return std::make_unique<UniformStore>(options);
}

}  // namespace

Replay::Replay(const ReplayOptions& options)
    : options_(options),
      n_step_(options.num_envs, options.n_step, options.gamma, options.observation_size,
              options.action_size, options.observation_dtype),
      store_(make_store(options)) {}

Replay::~Replay() = default;

std::int64_t Replay::size() const { return store_->size(); }

void Replay::sample(core::Rng& rng, std::int64_t batch_size, double progress,
                    TransitionBatch& out) {
  store_->sample(rng, batch_size, progress, out);
}

void Replay::update_priorities(const TransitionBatch& batch, const float* td_errors) {
  store_->update_priorities(batch.indices.data(), td_errors,
                            static_cast<std::int64_t>(batch.indices.size()));
}

void Replay::save_transitions(core::StateWriter& out) const { store_->save_state(out); }

void Replay::load_transitions(core::StateReader& in) { store_->load_state(in); }

void Replay::add_step(core::ConstTypedPtr observations, const float* actions, const float* rewards,
                      core::ConstTypedPtr next_observations, const std::uint8_t* terminated,
                      const std::uint8_t* truncated, core::ConstTypedPtr final_observations) {
  n_step_.add(observations, actions, rewards, next_observations, terminated, truncated,
              final_observations, [this](const Transition& t) {
                if (divert_) {
                  divert_(t);
                } else {
                  store_->add(t);
                }
              });
}

void Replay::add_transition(const Transition& transition, float td_error) {
  if (!std::isfinite(td_error)) {
    throw std::invalid_argument("Replay::add_transition: a TD error of " +
                                std::to_string(td_error) + " (the actor's network diverged?)");
  }
  const std::int64_t slot = store_->add(transition);
  store_->update_priorities(&slot, &td_error, 1);
}

}  // namespace mnrl::replay
