// DQN's registration: its `dqn:` section, checks and factory.
#include "agents/dqn/dqn_setup.h"
#include "agents/registry.h"

namespace mnrl::agents {
namespace {

class DqnAlgorithm final : public AlgorithmOf<DqnOptions> {
 public:
  std::string summary() const override { return "DQN hyperparameters (algo: dqn)"; }
  bool takes_encoder() const override { return true; }
  bool takes_device() const override { return true; }
  bool captures_gradient_steps() const override { return true; }
  bool takes_pipeline_stages() const override { return true; }

 protected:
  void check_options(const DqnOptions& dqn, const AgentCheck& check) const override {
    check_dqn_options(dqn, "dqn", check);
  }

  std::unique_ptr<Agent> make(const DqnOptions& dqn, const AgentSetup& setup) const override {
    return make_dqn(dqn, setup);
  }

  void scale(DqnOptions& dqn, double factor) const override { dqn.learning_rate *= factor; }

  StoredTransitions stored(const DqnOptions& dqn, std::int64_t) const override {
    return {"dqn.buffer_size", static_cast<double>(dqn.buffer_size)};
  }
  StoredTransitions step_rows(const DqnOptions& dqn, std::int64_t) const override {
    return {"dqn.batch_size", static_cast<double>(dqn.batch_size)};
  }
  // nn::q_network_blocks' refusal, said by key.
  std::string pipeline_refused(const DqnOptions& dqn) const override {
    if (dqn.distribution.implicit()) {
      return "dqn.distributional: iqn's quantile fractions enter mid-network and do not cut "
             "into stages (c51 and qr do)";
    }
    return {};
  }
};

}  // namespace

MNRL_REGISTER_AGENT("dqn", DqnAlgorithm);

}  // namespace mnrl::agents
