#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace mnrl::experiments {

// The processes of a study (its seeds' runs): each a child in a process group of its own, so a
// terminal's Ctrl-C reaches the study alone, which decides what each child is sent.

// Starts `args` (args[0] the program) in a process group of its own, stdin from /dev/null,
// stdout and stderr appended to `log`, with the stop signals at their defaults and
// MNRL_STUDY_PARENT naming this process (see follow_study_parent()). Throws std::runtime_error
// where it cannot.
pid_t spawn_child(const std::vector<std::string>& args, const std::filesystem::path& log);

// For a process spawn_child() started: asks the kernel to send it SIGUSR1 (a stop request: it
// checkpoints and ends) when the study process ends, however it ends (kill -9 too), so no run
// is left orphaned; and stops at once where the study already ended. Does nothing in a process
// a study did not start.
void follow_study_parent();

// The stop signals (core::kStopSignals) a study process received, counted by its own handlers:
// the first asks every child to stop; a later Ctrl-C or SIGTERM insists, and the study passes it
// on (the children then end at once, as a lone run does on a second Ctrl-C). Signals ignored at
// start (nohup) stay ignored.
class StudyStopSignals {
 public:
  StudyStopSignals();  // installs the handlers; SIGCHLD back at its default (waitpid works)
  int first() const;   // the first signal received, 0 before any
  // Whether a Ctrl-C or SIGTERM came after the first signal, since the last call.
  bool insisted();

 private:
  int insisted_seen_ = 0;
};

// Asks the child to stop: `insist` false sends SIGUSR1 (a run's stop request that a signal the
// child had already received, such as a batch system's SIGTERM to every process, never turns
// into an immediate end), true SIGINT (a run's second Ctrl-C: it ends at once). To its process
// group, so what the run started ends with it.
void stop_child(pid_t pid, bool insist);

}  // namespace mnrl::experiments
