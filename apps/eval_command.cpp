#include <cstdio>
#include <memory>
#include <optional>

#include "apps/checkpoint_command_errors.h"
#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/env_arguments.h"
#include "core/stop_signal.h"
#include "experiments/evaluation/checkpoint_evaluation.h"

namespace mnrl::apps {

int eval_command(const EvalArguments& args) {
  // Ctrl-C or SIGTERM ends the episodes at their next step; a --video GIF is then not written
  // and its temporary file is deleted.
  core::install_stop_handlers();
  const int status = run_checkpoint_command("eval", [&] {
    std::optional<experiments::VideoOptions> video;
    if (!args.video.empty()) video = experiments::VideoOptions{args.video, args.video_fps};
    const auto evaluation = experiments::evaluate_checkpoint(
        args.target, args.episodes, args.seed, args.stochastic,
        [](const std::string& reason) {
          std::fprintf(stderr, "mnrl eval: skipping a checkpoint: %s\n", reason.c_str());
        },
        video,
        [](const std::string& warning) {
          std::fprintf(stderr, "mnrl eval: warning: %s\n", warning.c_str());
        });
    const auto& r = evaluation.result;
    std::printf("%s on %s, step %lld (%s)\n", evaluation.info.algo.c_str(),
                evaluation.info.env.c_str(), static_cast<long long>(evaluation.info.step),
                evaluation.checkpoint.c_str());
    std::printf(
        "mean return %.2f ± %.2f, mean length %.1f over %d episodes (%s actions, seed %llu)\n",
        r.mean_return, r.std_return, r.mean_length, r.episodes,
        args.stochastic ? "stochastic" : "greedy", static_cast<unsigned long long>(args.seed));
    if (video) std::printf("video: %s\n", args.video.c_str());
    return kExitOk;
  });
  return core::stop_requested() ? 128 + core::stop_signal() : status;
}

Command add_eval_command(CLI::App& mnrl) {
  auto args = std::make_shared<EvalArguments>();
  CLI::App* eval = mnrl.add_subcommand(
      "eval", "Evaluate a trained agent: a run directory's newest checkpoint, or a checkpoint");
  eval->add_option("target", args->target,
                   "RUN_DIR, RUN_DIR/checkpoints/step_N or RUN_DIR/checkpoints/best")
      ->required();
  eval->add_option("--episodes", args->episodes, "Episodes to play (one env each)")
      ->capture_default_str()
      ->check(in_range(1, 100000));
  eval->add_option("--seed", args->seed, "Seed of the evaluation envs (and sampling)")
      ->capture_default_str()
      ->check(in_range(0));
  eval->add_flag("--stochastic", args->stochastic,
                 "Sample actions from the policy instead of taking the most likely");
  eval->add_option("--video", args->video,
                   "Record the episodes, side by side, as an animated GIF at this path");
  // At most 50: a GIF counts delays in hundredths of a second, and viewers slow delays under
  // 2 of them down to 10.
  eval->add_option("--video-fps", args->video_fps, "Frames per second of the --video GIF")
      ->capture_default_str()
      ->check(in_range(1, 50));
  add_plugin_option(*eval, args->plugins);
  return {eval, [args] {
            if (!load_plugins(args->plugins, "eval")) return kExitUsage;
            return eval_command(*args);
          }};
}

}  // namespace mnrl::apps
