// A plugin that registers its env with MNRL_REGISTER_ENV, which runs as the library loads, before
// any version check: the loader must refuse it and register nothing.
#include "envs/cartpole.h"
#include "envs/plugin.h"

namespace {
class EarlyCartPole final : public mnrl::envs::Env {
 public:
  const mnrl::envs::EnvSpec& spec() const override { return inner_.spec(); }
  void reset(float* observation, std::optional<std::uint64_t> seed) override {
    inner_.reset(observation, seed);
  }
  mnrl::envs::StepResult step(const mnrl::envs::ActionRef& action, float* observation) override {
    return inner_.step(action, observation);
  }

 private:
  mnrl::envs::CartPole inner_;
};
}  // namespace

MNRL_REGISTER_ENV("EarlyCartPole-v0", EarlyCartPole);

MNRL_PLUGIN(registry) { registry.add<EarlyCartPole>("EarlyCartPole-v0"); }
