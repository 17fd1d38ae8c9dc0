#include <cstdio>
#include <exception>

#include "apps/commands.h"
#include "core/config.h"
#include "core/state_stream.h"
#include "experiments/checkpoint_evaluation.h"

namespace mnrl::apps {

int eval_command(const EvalArguments& args) {
  try {
    const auto evaluation = experiments::evaluate_checkpoint(
        args.target, args.episodes, args.seed, args.stochastic, [](const std::string& reason) {
          std::fprintf(stderr, "mnrl eval: skipping a checkpoint: %s\n", reason.c_str());
        });
    const auto& r = evaluation.result;
    std::printf("%s on %s, step %lld (%s)\n", evaluation.info.algo.c_str(),
                evaluation.info.env.c_str(), static_cast<long long>(evaluation.info.step),
                evaluation.checkpoint.c_str());
    std::printf("mean return %.2f ± %.2f, mean length %.1f over %d episodes (%s actions, seed %llu)\n",
                r.mean_return, r.std_return, r.mean_length, r.episodes,
                args.stochastic ? "stochastic" : "greedy",
                static_cast<unsigned long long>(args.seed));
    return kExitOk;
  } catch (const experiments::CheckpointError& e) {
    std::fprintf(stderr, "mnrl eval: %s\n", e.what());
    return kExitUsage;
  } catch (const core::ConfigError& e) {
    std::fprintf(stderr, "mnrl eval: config error in the checkpoint: %s\n", e.what());
    return kExitUsage;
  } catch (const core::StateError& e) {
    std::fprintf(stderr, "mnrl eval: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mnrl eval: error: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace mnrl::apps
