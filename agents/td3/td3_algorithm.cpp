// TD3's and DDPG's registrations: their `td3:` and `ddpg:` sections, checks and factories.
#include "agents/off_policy/off_policy_setup.h"
#include "agents/registry.h"
#include "agents/td3/td3.h"
#include "core/seed_streams.h"

namespace mnrl::agents {
namespace {

std::unique_ptr<Agent> make_td3(const std::string& algo, const Td3Options& td3, int critics,
                                const AgentSetup& setup) {
  auto networks = make_off_policy_networks(setup, critics, ActorKind{}, std::nullopt);
  auto parameters = std::make_shared<nn::FlatParameters>(*networks);
  GradientRangeHook hook = setup.range_hook_for(*parameters);
  auto agent = std::make_unique<Td3>(
      algo, td3, action_bounds(setup.spec), std::move(networks), std::move(parameters),
      make_off_policy_replay(td3.off_policy, setup),
      core::derive_seed(setup.seed, core::kExplorationStream), gradient_path_for(setup.device));
  agent->set_gradient_hook(std::move(hook));
  agent->set_cuda_graphs(setup.cuda_graphs);
  return agent;
}

class Td3Algorithm final : public AlgorithmOf<Td3Options> {
 public:
  std::string summary() const override { return "TD3 hyperparameters (algo: td3)"; }

 protected:
  void check_options(const Td3Options& td3, const AgentCheck& check) const override {
    check_off_policy("td3", td3.off_policy, check);
  }
  std::unique_ptr<Agent> make(const Td3Options& td3, const AgentSetup& setup) const override {
    return make_td3("td3", td3, 2, setup);
  }
  bool takes_device() const override { return true; }
  bool captures_gradient_steps() const override { return true; }
  void scale(Td3Options& td3, double factor) const override {
    td3.off_policy.learning_rate *= factor;
  }
  StoredTransitions stored(const Td3Options& td3, std::int64_t) const override {
    return off_policy_stored("td3", td3.off_policy);
  }
};

class DdpgAlgorithm final : public AlgorithmOf<DdpgOptions> {
 public:
  std::string summary() const override { return "DDPG hyperparameters (algo: ddpg)"; }

 protected:
  void check_options(const DdpgOptions& ddpg, const AgentCheck& check) const override {
    check_off_policy("ddpg", ddpg.off_policy, check);
  }
  std::unique_ptr<Agent> make(const DdpgOptions& ddpg, const AgentSetup& setup) const override {
    return make_td3("ddpg", ddpg.as_td3(), 1, setup);
  }
  bool takes_device() const override { return true; }
  bool captures_gradient_steps() const override { return true; }
  void scale(DdpgOptions& ddpg, double factor) const override {
    ddpg.off_policy.learning_rate *= factor;
  }
  StoredTransitions stored(const DdpgOptions& ddpg, std::int64_t) const override {
    return off_policy_stored("ddpg", ddpg.off_policy);
  }
};

}  // namespace

MNRL_REGISTER_AGENT("td3", Td3Algorithm);
MNRL_REGISTER_AGENT("ddpg", DdpgAlgorithm);

}  // namespace mnrl::agents
