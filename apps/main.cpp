// The mnrl program: each command adds its own subcommand (apps/cli.h); main parses the command
// line and runs the one given.
#include <csignal>

#include "apps/cli.h"
#include "envs/plugin_call.h"

int main(int argc, char** argv) {
  using namespace mnrl::apps;
  // Past a file size limit (ulimit -f) a write then fails with EFBIG, which the writer reports
  // by name, instead of the process dying silently of SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App mnrl;
  const std::vector<Command> commands = add_commands(mnrl, argc, argv);
  if (const auto stop = parse_command_line(mnrl, argc, argv)) return *stop;
  // Plugin code that crashes, exits or hangs is reported by name (envs/plugin_call.h).
  mnrl::envs::install_plugin_call_reporting();
  return parsed_command(commands).run();
}
