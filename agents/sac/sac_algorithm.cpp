// SAC's registration: its `sac:` section, checks and factory.
#include <cmath>

#include "agents/off_policy/off_policy_setup.h"
#include "agents/registry.h"
#include "agents/sac/sac.h"
#include "core/seed_streams.h"
#include "core/text.h"

namespace mnrl::agents {
namespace {

class SacAlgorithm final : public AlgorithmOf<SacOptions> {
 public:
  std::string summary() const override { return "SAC hyperparameters (algo: sac)"; }

 protected:
  void check_options(const SacOptions& sac, const AgentCheck& check) const override {
    check_off_policy("sac", sac.off_policy, check);
    if (!parse_entropy_coefficient(sac.ent_coef)) {
      throw check.document.error_at("sac.ent_coef",
                                    "sac.ent_coef = '" + core::elided(sac.ent_coef) +
                                        "': use auto, auto_<initial value> (auto_0.1) or a "
                                        "positive number");
    }
    if (!parse_target_entropy(sac.target_entropy, 1)) {
      throw check.document.error_at(
          "sac.target_entropy",
          "sac.target_entropy = '" + core::elided(sac.target_entropy) + "': use auto or a number");
    }
  }

  std::unique_ptr<Agent> make(const SacOptions& sac, const AgentSetup& setup) const override {
    const EntropyCoefficient coefficient = *parse_entropy_coefficient(sac.ent_coef);
    auto networks = make_off_policy_networks(
        setup, 2, ActorKind{true, sac.use_sde},
        coefficient.learned ? std::optional<double>(std::log(coefficient.initial)) : std::nullopt);
    auto parameters = std::make_shared<nn::FlatParameters>(*networks);
    GradientRangeHook hook = setup.range_hook_for(*parameters);
    auto agent = std::make_unique<Sac>(
        sac, action_bounds(setup.spec), std::move(networks), std::move(parameters),
        make_off_policy_replay(sac.off_policy, setup),
        core::derive_seed(setup.seed, core::kExplorationStream), gradient_path_for(setup.device));
    agent->set_gradient_hook(std::move(hook));
    agent->set_cuda_graphs(setup.cuda_graphs);
    return agent;
  }

  bool sde(const SacOptions& sac) const override { return sac.use_sde; }
  bool takes_device() const override { return true; }
  bool captures_gradient_steps() const override { return true; }

  void scale(SacOptions& sac, double factor) const override {
    sac.off_policy.learning_rate *= factor;
  }

  StoredTransitions stored(const SacOptions& sac, std::int64_t) const override {
    return off_policy_stored("sac", sac.off_policy);
  }
};

}  // namespace

MNRL_REGISTER_AGENT("sac", SacAlgorithm);

}  // namespace mnrl::agents
