#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/env_arguments.h"
#include "envs/env_checker.h"

namespace mnrl::apps {

int check_env_command(const CheckEnvArguments& args) {
  envs::EnvCheckOptions options;
  options.steps = args.steps;
  options.seed = args.seed;
  const auto kwargs = parse_kwargs(args.kwargs, "check-env");
  if (!kwargs) return kExitUsage;
  envs::EnvCheckReport report;
  try {
    report = envs::check_registered_env(args.id, options, *kwargs);
  } catch (const std::invalid_argument& e) {  // unknown id or unusable kwargs
    std::fprintf(stderr, "mnrl check-env: %s\n", e.what());
    return kExitUsage;
  }

  std::printf("Checking %s: %lld random steps per rollout, seed %llu\n", args.id.c_str(),
              static_cast<long long>(args.steps), static_cast<unsigned long long>(args.seed));
  int failed = 0;
  int skipped = 0;
  for (const auto& r : report.results) {
    switch (r.status) {
      case envs::EnvCheckStatus::kPassed:
        std::printf("PASS  %s\n", r.check.c_str());
        break;
      case envs::EnvCheckStatus::kFailed:
        ++failed;
        std::printf("FAIL  %s: %s\n", r.check.c_str(), r.detail.c_str());
        break;
      case envs::EnvCheckStatus::kSkipped:
        ++skipped;
        std::printf("SKIP  %s: %s\n", r.check.c_str(), r.detail.c_str());
        break;
    }
  }
  const int total = static_cast<int>(report.results.size());
  const std::string skip_note =
      skipped > 0 ? ", " + std::to_string(skipped) + " not fully checked" : std::string();
  if (failed > 0) {
    std::printf("%s breaks the environment contract: %d of %d checks failed%s.\n", args.id.c_str(),
                failed, total, skip_note.c_str());
    return kExitFailure;
  }
  std::printf("%s: %d of %d checks passed%s.\n", args.id.c_str(), total - skipped, total,
              skip_note.c_str());
  return kExitOk;
}

Command add_check_env_command(CLI::App& mnrl) {
  auto args = std::make_shared<CheckEnvArguments>();
  CLI::App* check_env = mnrl.add_subcommand(
      "check-env", "Check that an environment keeps the Env contract (spaces, seeding, limits)");
  check_env->add_option("id", args->id, "Registered environment id, e.g. CartPole-v1")->required();
  check_env->add_option("--steps", args->steps, "Random-action steps per rollout")
      ->capture_default_str()
      ->check(in_range(1));
  // in_range(0): CLI11 would otherwise wrap "-1" around to 2^64 - 1.
  check_env->add_option("--seed", args->seed, "Seed of the env resets and the actions")
      ->capture_default_str()
      ->check(in_range(0));
  check_env
      ->add_option("--kwarg", args->kwargs,
                   "Argument of the env's constructor, e.g. --kwarg size=5 (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  add_plugin_option(*check_env, args->plugins);
  return {check_env, [args] {
            if (!load_plugins(args->plugins, "check-env")) return kExitUsage;
            return check_env_command(*args);
          }};
}

}  // namespace mnrl::apps
