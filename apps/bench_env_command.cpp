#include <cstdio>
#include <exception>
#include <string>

#include "apps/commands.h"
#include "apps/env_arguments.h"
#include "apps/env_throughput.h"
#include "core/text.h"
#include "envs/env_options.h"
#include "envs/registry.h"

namespace mnrl::apps {

int bench_env_command(const BenchEnvArguments& args) {
  const auto& registry = envs::Registry::global();
  if (!registry.contains(args.id)) {
    std::fprintf(stderr, "mnrl bench env: unknown environment '%s'%s; registered: %s\n",
                 args.id.c_str(), core::did_you_mean(args.id, registry.ids()).c_str(),
                 core::join(registry.ids()).c_str());
    return kExitUsage;
  }
  const auto kwargs = parse_kwargs(args.kwargs, "bench env");
  if (!kwargs) return kExitUsage;
  envs::EnvOptions options;
  options.id = args.id;
  options.kwargs = *kwargs;
  options.num_envs = args.num_envs;
  try {
    const auto env = envs::make_env(options);
    std::printf("%s: observations %s, actions %s; random actions, %lld steps per measurement\n",
                args.id.c_str(), envs::describe(env->spec().observation_space).c_str(),
                envs::describe(env->spec().action_space).c_str(),
                static_cast<long long>(args.steps));
    const auto report = [](const std::string& what, double steps_per_second) {
      std::printf("  %-34s %14.0f steps/s\n", what.c_str(), steps_per_second);
      std::fflush(stdout);
    };
    report("single env", single_env_steps_per_second(options, args.steps));
    const std::string vector = "vector env, " + std::to_string(args.num_envs) + " envs, ";
    report(vector + "1 thread", vector_env_steps_per_second(options, args.steps));
    if (args.threads > 1) {
      options.num_threads = args.threads;
      report(vector + std::to_string(args.threads) + " threads",
             vector_env_steps_per_second(options, args.steps));
    }
    return kExitOk;
  } catch (const core::KwargError& e) {  // thrown by the first make_env, before any output
    std::fprintf(stderr, "mnrl bench env: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mnrl bench env: error: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace mnrl::apps
