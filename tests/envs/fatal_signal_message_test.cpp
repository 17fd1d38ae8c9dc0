// The message mnrl prints when the process dies of a fatal signal outside an env plugin call:
// what it was inside of, where something said so (core::CrashNote), else that no plugin was.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include "core/crash_note.h"
#include "envs/plugin_call.h"

namespace {

struct Death {
  int signal = 0;      // the signal the child died of (0: it did not)
  std::string stderr;  // what it wrote to stderr
};

// Forks a child that installs mnrl's reporting, sets `note` (unless null) and raises SIGSEGV.
Death segfault_with_note(const char* note) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return {};
  const pid_t child = fork();
  if (child == 0) {
    dup2(pipe_ends[1], STDERR_FILENO);
    close(pipe_ends[0]);
    mnrl::envs::install_plugin_call_reporting();
    if (note) mnrl::core::set_crash_note(note);
    std::raise(SIGSEGV);
    _exit(0);
  }
  close(pipe_ends[1]);
  Death death;
  char buffer[512];
  for (ssize_t n; (n = read(pipe_ends[0], buffer, sizeof buffer)) > 0;) {
    death.stderr.append(buffer, static_cast<std::size_t>(n));
  }
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFSIGNALED(status)) death.signal = WTERMSIG(status);
  return death;
}

TEST(FatalSignalMessageTest, SaysWhatTheProcessWasInside) {
  const Death death = segfault_with_note("inside MPI_Init (the MPI library's start-up)");
  EXPECT_EQ(death.signal, SIGSEGV);  // it still dies of the signal
  EXPECT_NE(death.stderr.find(
                "mnrl: SIGSEGV (segmentation fault) inside MPI_Init (the MPI library's start-up)"),
            std::string::npos)
      << death.stderr;
}

TEST(FatalSignalMessageTest, WithoutANoteSaysItWasNotInAPluginCall) {
  const Death death = segfault_with_note(nullptr);
  EXPECT_EQ(death.signal, SIGSEGV);
  EXPECT_NE(death.stderr.find("mnrl: SIGSEGV (segmentation fault) (not in an env plugin call)"),
            std::string::npos)
      << death.stderr;
}

TEST(FatalSignalMessageTest, ANoteEndsWithItsScope) {
  { const mnrl::core::CrashNote note("inside a scope"); }
  EXPECT_EQ(mnrl::core::crash_note(), nullptr);
}

}  // namespace
