#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace mnrl::apps {

// One subcommand of mnrl: its options live on `app`; `run` runs it once the command line
// parsed, and returns the exit code.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Each command file adds its own subcommand to `mnrl` (`command_line` is the whole line, for
// the run's records).
Command add_train_command(CLI::App& mnrl, const std::string& command_line);
Command add_eval_command(CLI::App& mnrl);
Command add_export_command(CLI::App& mnrl);
Command add_plot_command(CLI::App& mnrl);
Command add_report_command(CLI::App& mnrl);
Command add_tune_command(CLI::App& mnrl);
Command add_envs_command(CLI::App& mnrl);
Command add_check_env_command(CLI::App& mnrl);
// `config keys`.
Command add_config_command(CLI::App& mnrl);
// `bench` and its `bench env` subcommand.
std::vector<Command> add_bench_commands(CLI::App& mnrl);

// The program's description, version and footer, and every command, in help order.
std::vector<Command> add_commands(CLI::App& mnrl, int argc, char** argv);

// Parses the command line into `mnrl`. Returns the exit code when the program should stop
// here (help, version, an unknown command with a suggestion, a usage error), else nullopt.
std::optional<int> parse_command_line(CLI::App& mnrl, int argc, char** argv);

// The command that parsed (the innermost: `bench env` over `bench`).
const Command& parsed_command(const std::vector<Command>& commands);

// Options shared by the commands.

// "must be in [min, max]" for an integer option (CLI::PositiveNumber words its range in
// doubles, and CLI11 saturates a number too large for the type instead of refusing it).
CLI::Validator in_range(std::int64_t minimum,
                        std::int64_t maximum = std::numeric_limits<std::int64_t>::max());

// --plugin PATH (repeatable) on a command that makes envs, filling `paths`; the command loads
// them (load_plugins) before anything else.
void add_plugin_option(CLI::App& command, std::vector<std::string>& paths);

}  // namespace mnrl::apps
