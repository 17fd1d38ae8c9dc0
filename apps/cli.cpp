#include "apps/cli.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "apps/commands.h"
#include "core/build_info.h"
#include "core/openblas.h"
#include "core/shell_words.h"
#include "core/text.h"
#include "experiments/runs/physics_engines.h"

namespace mnrl::apps {
namespace {

std::string command_line(int argc, char** argv) {
  return core::shell_command_line(std::vector<std::string>(argv, argv + argc));
}

}  // namespace

std::vector<Command> add_commands(CLI::App& mnrl, int argc, char** argv) {
  mnrl.description("mnrl: deep reinforcement learning in C++ on LibTorch");
  mnrl.name("mnrl");
  mnrl.set_version_flag("--version", std::string("mnrl ") + core::version() + " (" +
                                         core::source_revision() + ")\nBLAS: " +
                                         core::blas_description() + "\nphysics: " +
                                         experiments::physics_engines_description());
  mnrl.require_subcommand(1, 1);
  mnrl.footer(
      "Exit codes: 0 success; 1 failure while running; 2 bad command line, config, run "
      "directory, checkpoint or plugin (nothing run or written); 130/143/129/138 stopped by "
      "Ctrl-C / SIGTERM / SIGHUP / SIGUSR1 (checkpoint written); 128+N ended by signal N.\n"
      "Docs: README.md, docs/ (reliability.md: what mnrl promises when things go wrong).");
  std::vector<Command> commands{add_train_command(mnrl, command_line(argc, argv)),
                                add_eval_command(mnrl),
                                add_export_command(mnrl),
                                add_plot_command(mnrl),
                                add_report_command(mnrl),
                                add_tune_command(mnrl),
                                add_envs_command(mnrl),
                                add_check_env_command(mnrl),
                                add_config_command(mnrl)};
  for (Command& bench : add_bench_commands(mnrl)) commands.push_back(std::move(bench));
  return commands;
}

std::optional<int> parse_command_line(CLI::App& mnrl, int argc, char** argv) {
  // A mistyped command gets a suggestion instead of CLI11's generic "not expected".
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* command : mnrl.get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(command->get_name());
    }
    const std::string command = argv[1];
    if (std::find(names.begin(), names.end(), command) == names.end()) {
      std::fprintf(stderr, "mnrl: unknown command '%s'%s\nCommands: %s. Run 'mnrl --help'.\n",
                   command.c_str(), core::did_you_mean(command, names).c_str(),
                   core::join(names).c_str());
      return kExitUsage;
    }
  }
  try {
    mnrl.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return mnrl.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return mnrl.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return mnrl.exit(e);
  } catch (const CLI::ParseError& e) {
    const auto* sub = mnrl.get_subcommands().empty() ? nullptr : mnrl.get_subcommands().front();
    const std::string name = sub ? " " + sub->get_name() : "";
    std::fprintf(stderr, "mnrl%s: %s\nRun 'mnrl%s --help' for usage.\n", name.c_str(), e.what(),
                 name.c_str());
    return kExitUsage;
  }
  return std::nullopt;
}

const Command& parsed_command(const std::vector<Command>& commands) {
  const Command* parsed = nullptr;
  for (const Command& command : commands) {
    if (command.app->parsed()) parsed = &command;  // a subcommand comes after its parent
  }
  return *parsed;  // require_subcommand(1, 1): one parsed
}

CLI::Validator in_range(std::int64_t minimum, std::int64_t maximum) {
  const bool bounded = maximum != std::numeric_limits<std::int64_t>::max();
  return CLI::Validator(
      [minimum, maximum, bounded](std::string& value) {
        std::int64_t number = 0;
        const auto [end, error] =
            std::from_chars(value.data(), value.data() + value.size(), number);
        const bool whole = end == value.data() + value.size();
        const bool too_large = whole && (error == std::errc::result_out_of_range ||
                                         (error == std::errc() && number > maximum));
        if (bounded && (too_large || (whole && error == std::errc() && number < minimum))) {
          return "must be in [" + std::to_string(minimum) + ", " + std::to_string(maximum) +
                 "], got " + value;
        }
        if (too_large) return "must be at most " + std::to_string(maximum) + ", got " + value;
        if (whole && error == std::errc() && number < minimum) {
          return "must be at least " + std::to_string(minimum) + ", got " + value;
        }
        return std::string();
      },
      bounded ? "INT in [" + std::to_string(minimum) + ", " + std::to_string(maximum) + "]"
              : "INT>=" + std::to_string(minimum));
}

void add_plugin_option(CLI::App& command, std::vector<std::string>& paths) {
  command.add_option("--plugin", paths,
                     "Env plugin (.so) to load first, a path taken as given (repeatable)")
      ->type_name("PATH")
      ->allow_extra_args(false);
}

}  // namespace mnrl::apps
