// The mnrl program: each command adds its own subcommand (apps/cli.h); main parses the command
// line and runs the one given.
#include <dlfcn.h>
#include <unistd.h>

#include <csignal>

#include "apps/cli.h"
#include "envs/plugin_call.h"

// The program's exit(), found before libc's by every library and plugin (the program exports
// it: apps/CMakeLists.txt): an env plugin's thread that calls exit() would run the static
// destructors under the main thread's feet (a crash such as "double free or corruption"), so
// that is refused before anything is destroyed; every other exit goes on to libc's.
extern "C" [[noreturn]] void exit(int status) noexcept {
  mnrl::envs::fail_if_exiting_from_another_thread();
  using Exit = void (*)(int);
  const auto libc_exit = reinterpret_cast<Exit>(dlsym(RTLD_NEXT, "exit"));
  libc_exit(status);
  _exit(status);  // not reached: libc's exit does not return
}

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
