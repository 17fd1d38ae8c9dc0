#include <cstdio>
#include <memory>

#include "apps/checkpoint_command_errors.h"
#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/env_arguments.h"
#include "core/files.h"
#include "experiments/evaluation/checkpoint_evaluation.h"

namespace mnrl::apps {

int export_command(const ExportArguments& args) {
  return run_checkpoint_command("export", [&] {
    const auto exported = experiments::export_checkpoint_policy(
        args.target, [](const std::string& reason) {
          std::fprintf(stderr, "mnrl export: skipping a checkpoint: %s\n", reason.c_str());
        },
        [](const std::string& warning) {
          std::fprintf(stderr, "mnrl export: warning: %s\n", warning.c_str());
        });
    core::write_file_atomically(args.output, exported.module);
    std::printf("%s on %s, step %lld (%s)\nwrote %s: a TorchScript module, greedy actions from "
                "observations as the env gives them (torch.jit.load / torch::jit::load)\n",
                exported.info.algo.c_str(), exported.info.env.c_str(),
                static_cast<long long>(exported.info.step), exported.checkpoint.c_str(),
                args.output.c_str());
    return kExitOk;
  });
}

Command add_export_command(CLI::App& mnrl) {
  auto args = std::make_shared<ExportArguments>();
  CLI::App* command = mnrl.add_subcommand(
      "export", "Write a trained agent's greedy policy as a TorchScript module for deployment");
  command
      ->add_option("target", args->target,
                   "RUN_DIR, RUN_DIR/checkpoints/step_N or RUN_DIR/checkpoints/best")
      ->required();
  command->add_option("-o,--output", args->output, "Module file to write")->capture_default_str();
  add_plugin_option(*command, args->plugins);
  return {command, [args] {
            if (!load_plugins(args->plugins, "export")) return kExitUsage;
            return export_command(*args);
          }};
}

}  // namespace mnrl::apps
