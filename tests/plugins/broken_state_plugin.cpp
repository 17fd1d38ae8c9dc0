// A test plugin whose state does not round-trip, as a plugin with a serialization bug: the env
// saves its position but not its step count, which its rewards depend on. `mnrl check-env`
// must reject it (its state would resume a run wrongly).
//  - ForgetfulWalk-v0: a walk on [0, 5] that pays 0.01 times the steps taken since its reset.
#include <cstdint>
#include <optional>

#include "envs/plugin.h"
#include "envs/saved_state.h"

namespace {

using mnrl::core::Kwargs;
using namespace mnrl::envs;

class ForgetfulWalk final : public Env, public StatefulEnv {
 public:
  explicit ForgetfulWalk(const Kwargs&) {
    spec_.id = "ForgetfulWalk-v0";
    spec_.observation_space = Box{{1}, {0.0f}, {5.0f}};
    spec_.action_space = Discrete{2};
    spec_.max_episode_steps = 50;
  }
  const EnvSpec& spec() const override { return spec_; }
  void reset(mnrl::core::TypedPtr out, std::optional<std::uint64_t>) override {
    position_ = 0;
    steps_ = 0;
    out.floats()[0] = 0.0f;
  }
  StepResult step(const ActionRef& action, mnrl::core::TypedPtr out) override {
    position_ = action.index == 1 ? position_ + 1 : (position_ > 0 ? position_ - 1 : 0);
    ++steps_;
    out.floats()[0] = static_cast<float>(position_);
    return {0.01 * steps_, position_ == 5, false};
  }
  // The bug: steps_ is neither saved nor loaded.
  void save_state(mnrl::core::StateWriter& out) const override { out.value(position_); }
  void load_state(mnrl::core::StateReader& in) override { in.value(position_); }

 private:
  EnvSpec spec_;
  int position_ = 0;
  int steps_ = 0;
};

}  // namespace

MNRL_PLUGIN(registry) { registry.add<ForgetfulWalk>("ForgetfulWalk-v0"); }
