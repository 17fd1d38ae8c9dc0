// A plugin that registers a new id next to one mnrl already has (CartPole-v1): the loader must
// refuse it as a whole, registering neither.
#include "envs/cartpole.h"
#include "envs/plugin.h"

namespace {

// CartPole under an id of its own, so that only the taken id is wrong.
class FreshCartPole final : public mnrl::envs::Env {
 public:
  FreshCartPole() : spec_(inner_.spec()) { spec_.id = "FreshCartPole-v0"; }
  const mnrl::envs::EnvSpec& spec() const override { return spec_; }
  void reset(mnrl::core::TypedPtr out, std::optional<std::uint64_t> seed) override {
    float* observation = out.floats();
    inner_.reset(observation, seed);
  }
  mnrl::envs::StepResult step(const mnrl::envs::ActionRef& action,
                              mnrl::core::TypedPtr out) override {
    float* observation = out.floats();
    return inner_.step(action, observation);
  }

 private:
  mnrl::envs::CartPole inner_;
  mnrl::envs::EnvSpec spec_;
};

}  // namespace

MNRL_PLUGIN(registry) {
  registry.add<FreshCartPole>("FreshCartPole-v0");
  registry.add<mnrl::envs::CartPole>("CartPole-v1");
}
