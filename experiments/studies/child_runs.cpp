#include "experiments/studies/child_runs.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/stop_signal.h"

extern "C" char** environ;

namespace mnrl::experiments {
namespace {

constexpr const char* kParentVariable = "MNRL_STUDY_PARENT";

volatile std::sig_atomic_t first_signal = 0;
volatile std::sig_atomic_t insisting_signals = 0;  // SIGINT/SIGTERM after the first signal

extern "C" void on_study_signal(int signal) {
  if (first_signal == 0) {
    first_signal = signal;
  } else if (signal == SIGINT || signal == SIGTERM) {
    // SIGHUP and SIGUSR1 often come twice on their own (see core/stop_signal.h): not insisting.
    insisting_signals = insisting_signals + 1;
  }
}

// This process's environment with MNRL_STUDY_PARENT=<pid> in place of any inherited one.
std::vector<std::string> child_environment() {
  std::vector<std::string> variables;
  const std::string prefix = std::string(kParentVariable) + "=";
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (std::strncmp(*variable, prefix.c_str(), prefix.size()) != 0) variables.push_back(*variable);
  }
  variables.push_back(prefix + std::to_string(::getpid()));
  return variables;
}

std::vector<char*> pointers_to(std::vector<std::string>& texts) {
  std::vector<char*> pointers;
  for (std::string& text : texts) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

pid_t spawn_child(const std::vector<std::string>& args, const std::filesystem::path& log) {
  posix_spawn_file_actions_t files;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (const int signal : core::kStopSignals) sigaddset(&defaults, signal);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> arguments = args;
  std::vector<std::string> environment = child_environment();
  pid_t pid = 0;
  const int error = posix_spawn(&pid, arguments[0].c_str(), &files, &attributes,
                                pointers_to(arguments).data(), pointers_to(environment).data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    throw std::runtime_error("cannot start '" + args[0] + "' (output to " + log.string() +
                             "): " + std::strerror(error));
  }
  return pid;
}

void follow_study_parent() {
  const char* parent = std::getenv(kParentVariable);
  if (parent == nullptr) return;
  const long parent_pid = std::strtol(parent, nullptr, 10);
  ::prctl(PR_SET_PDEATHSIG, SIGUSR1);
  // The study may have ended before the request above: then the signal never comes.
  if (::getppid() != parent_pid) std::raise(SIGUSR1);
}

StudyStopSignals::StudyStopSignals() {
  struct sigaction action {};
  action.sa_handler = on_study_signal;
  sigemptyset(&action.sa_mask);
  for (const int signal : core::kStopSignals) {
    struct sigaction inherited {};
    sigaction(signal, nullptr, &inherited);
    if (inherited.sa_handler != SIG_IGN) sigaction(signal, &action, nullptr);
  }
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGCHLD, SIG_DFL);  // an inherited SIG_IGN would make waitpid() fail
}

int StudyStopSignals::first() const { return first_signal; }

bool StudyStopSignals::insisted() {
  const int seen = insisting_signals;
  const bool more = seen != insisted_seen_;
  insisted_seen_ = seen;
  return more;
}

void stop_child(pid_t pid, bool insist) { ::killpg(pid, insist ? SIGINT : SIGUSR1); }

}  // namespace mnrl::experiments
