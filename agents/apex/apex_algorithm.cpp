// Ape-X DQN's registration: its `apex_dqn:` section, checks and factory. Its agent is a Dqn
// (topologies/apex/apex_learner.h arranges the actors and the learner).
#include "agents/apex/apex_options.h"
#include "agents/dqn/dqn_setup.h"
#include "agents/registry.h"

namespace mnrl::agents {
namespace {

class ApexAlgorithm final : public AlgorithmOf<ApexOptions> {
 public:
  std::string summary() const override { return "Ape-X DQN hyperparameters (algo: apex_dqn)"; }
  std::string topology() const override { return "apex_actors"; }
  bool takes_encoder() const override { return true; }
  // The learners: actors act on the CPU whatever train.device says.
  bool takes_device() const override { return true; }
  bool captures_gradient_steps() const override { return true; }

 protected:
  void check_options(const ApexOptions& apex, const AgentCheck& check) const override {
    check_dqn_options(apex.dqn(check.env.num_envs), "apex_dqn", check);
  }

  // Explores with `epsilon`; an actor of several fixes its own (ApexActorOptions::actor_epsilon).
  std::unique_ptr<Agent> make(const ApexOptions& apex, const AgentSetup& setup) const override {
    auto agent = make_dqn(apex.dqn(setup.num_envs), setup);
    agent->fix_epsilon(apex.actors.epsilon);
    return agent;
  }

  void scale(ApexOptions& apex, double factor) const override { apex.learning_rate *= factor; }

  StoredTransitions stored(const ApexOptions& apex, std::int64_t) const override {
    return {"apex_dqn.buffer_size", static_cast<double>(apex.buffer_size)};
  }
};

}  // namespace

MNRL_REGISTER_AGENT("apex_dqn", ApexAlgorithm);

}  // namespace mnrl::agents
