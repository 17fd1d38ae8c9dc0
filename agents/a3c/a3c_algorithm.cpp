// A3C's registration: its `a3c:` section and checks. Its training runs as asynchronous
// workers (topologies/a3c: threads in one process, a parameter server across ranks).
#include "agents/a3c/a3c_workers.h"
#include "agents/registry.h"
#include "core/text.h"

namespace mnrl::agents {
namespace {

class A3cAlgorithm final : public AlgorithmOf<A3cOptions> {
 public:
  std::string summary() const override { return "A3C hyperparameters (algo: a3c)"; }
  bool takes_encoder() const override { return true; }
  bool takes_recurrent() const override { return true; }
  bool takes_parameter_servers() const override { return true; }
  std::string topology() const override { return "a3c_workers"; }

 protected:
  void check_options(const A3cOptions& a3c, const AgentCheck& check) const override {
    if (a3c.optimizer != "rmsprop") {
      throw check.document.error_at("a3c.optimizer",
                                    "a3c.optimizer = '" + core::elided(a3c.optimizer) +
                                        "': A3C workers share one RMSprop; only rmsprop is "
                                        "supported");
    }
    for (const auto& wrapper : check.env.wrappers) {
      if (wrapper.type == "normalize_observation" || wrapper.type == "normalize_reward") {
        throw check.document.error_at(
            "env.wrappers", "env.wrappers: " + wrapper.type +
                                " is not supported with algo: a3c yet (each worker would keep "
                                "its own statistics)");
      }
    }
  }

  // One worker learning into a shared model of its own: A3C with a single worker.
  std::unique_ptr<Agent> make(const A3cOptions& a3c, const AgentSetup& setup) const override {
    return make_a3c_worker(a3c, setup, make_a3c_shared_model(a3c, setup));
  }

  // The workers' gradients are applied one by one, not averaged: the rate stays as written.
  void scale(A3cOptions&, double) const override {}

  StoredTransitions stored(const A3cOptions& a3c, std::int64_t num_envs) const override {
    return {"a3c.n_steps",
            static_cast<double>(a3c.n_steps) * static_cast<double>(num_envs) * a3c.workers};
  }

  bool sde(const A3cOptions& a3c) const override { return a3c.use_sde; }
};

}  // namespace

MNRL_REGISTER_AGENT("a3c", A3cAlgorithm);

}  // namespace mnrl::agents
