// Ape-X R2D2's registration: its `apex_r2d2:` section, checks and factory. Its agent is an R2d2
// (topologies/apex/apex_learner.h arranges the actors and the learner).
#include "agents/apex/apex_r2d2_options.h"
#include "agents/r2d2/r2d2_setup.h"

namespace mnrl::agents {
namespace {

class ApexR2d2Algorithm final : public AlgorithmOf<ApexR2d2Options> {
 public:
  std::string summary() const override {
    return "Ape-X R2D2 hyperparameters (algo: apex_r2d2; needs network.recurrent)";
  }
  std::string topology() const override { return "apex_r2d2_actors"; }
  bool takes_encoder() const override { return true; }
  bool takes_recurrent() const override { return true; }

 protected:
  void check_options(const ApexR2d2Options& apex, const AgentCheck& check) const override {
    check_r2d2_options(apex.r2d2, "apex_r2d2", check);
  }

  // Explores with `epsilon`; an actor of several fixes its own (ApexActorOptions::actor_epsilon).
  std::unique_ptr<Agent> make(const ApexR2d2Options& apex, const AgentSetup& setup) const override {
    auto agent = make_r2d2(apex.agent(setup.num_envs), setup);
    agent->fix_epsilon(apex.actors.epsilon);
    return agent;
  }

  void scale(ApexR2d2Options& apex, double factor) const override {
    apex.r2d2.learning_rate *= factor;
  }

  StoredTransitions stored(const ApexR2d2Options& apex, std::int64_t) const override {
    return {"apex_r2d2.buffer_size",
            static_cast<double>(apex.r2d2.buffer_size) *
                static_cast<double>(apex.r2d2.burn_in + apex.r2d2.seq_len + 1)};
  }
};

}  // namespace

MNRL_REGISTER_AGENT("apex_r2d2", ApexR2d2Algorithm);

}  // namespace mnrl::agents
