#pragma once

#include <atomic>

namespace mnrl::core {

// What the process is inside of, for the fatal-signal message (envs/plugin_call.cpp): a crash
// inside a library's own start-up (MPI_Init) is told apart from one in mnrl's code.
inline std::atomic<const char*> crash_note_text{nullptr};

// `note` must live as long as it is set (a string literal); nullptr clears it.
inline void set_crash_note(const char* note) { crash_note_text.store(note); }
// Safe to call from a signal handler (a lock-free atomic load).
inline const char* crash_note() { return crash_note_text.load(); }

// Sets a note for the scope's lifetime.
class CrashNote {
 public:
  explicit CrashNote(const char* note) { set_crash_note(note); }
  ~CrashNote() { set_crash_note(nullptr); }
  CrashNote(const CrashNote&) = delete;
  CrashNote& operator=(const CrashNote&) = delete;
};

}  // namespace mnrl::core
