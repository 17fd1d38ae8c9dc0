// R2D2's registration: its `r2d2:` section, checks and factory.
#include "agents/r2d2/r2d2_setup.h"

namespace mnrl::agents {
namespace {

class R2d2Algorithm final : public AlgorithmOf<R2d2Options> {
 public:
  std::string summary() const override {
    return "R2D2 hyperparameters (algo: r2d2; needs network.recurrent)";
  }
  bool takes_encoder() const override { return true; }
  bool takes_recurrent() const override { return true; }

 protected:
  void check_options(const R2d2Options& r2d2, const AgentCheck& check) const override {
    check_r2d2_options(r2d2, "r2d2", check);
  }

  std::unique_ptr<Agent> make(const R2d2Options& r2d2, const AgentSetup& setup) const override {
    return make_r2d2(r2d2, setup);
  }

  void scale(R2d2Options& r2d2, double factor) const override { r2d2.learning_rate *= factor; }

  StoredTransitions stored(const R2d2Options& r2d2, std::int64_t) const override {
    return {"r2d2.buffer_size", static_cast<double>(r2d2.buffer_size) *
                                    static_cast<double>(r2d2.burn_in + r2d2.seq_len + 1)};
  }
};

}  // namespace

MNRL_REGISTER_AGENT("r2d2", R2d2Algorithm);

}  // namespace mnrl::agents
