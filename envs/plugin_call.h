#pragma once

#include <cstdint>

namespace mnrl::envs {

// What plugin code is running, for the three ways plugin code can end mnrl without an
// exception: a fatal signal (a segfault, abort()), a call of exit() or quick_exit(), and a
// call that never returns while a stop is requested. Each then gets a message naming the env,
// its plugin, the call and the step, written with async-signal-safe calls only.
//
// A PluginCall marks one call: Registry::make makes one around a plugin env's constructor and
// has one made around its destructor, PluginEnvGuard one around each reset() and step().
class PluginCall {
 public:
  // `env` ("environment 'X' from plugin 'P'") and `call` ("step()") must outlive the call;
  // `episode` and `step` are read when a message is written (null for a call outside
  // episodes: the constructor's, the destructor's).
  PluginCall(const char* env, const char* call, const std::int64_t* episode,
             const std::int64_t* step);
  ~PluginCall();
  PluginCall(const PluginCall&) = delete;
  PluginCall& operator=(const PluginCall&) = delete;

 private:
  const PluginCall* outer_;  // the call this one is inside of on this thread, if any
  const char* env_;
  const char* call_;
  const std::int64_t* episode_;
  const std::int64_t* step_;

  friend struct PluginCallReporting;
};

// Installs the reports: handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT that say what
// was running and then die of the signal as before (exit status 128+signal, core dumps as
// configured); atexit/at_quick_exit handlers that turn an exit from inside a plugin call, or
// from a thread other than the main one, into a reported failure (exit status 1); a fork
// handler that ends a child forked inside a plugin call when it returns into mnrl (an exec()
// or an exit of its own is left alone); and the stop signal's stuck probe (core::set_stuck_probe):
// the same plugin call running through a whole grace period after a stop request. Call it
// again after initializing a library that installs handlers of its own (MPI): the reports then
// come first again.
void install_plugin_call_reporting();

// Ends the process with exit status 1, saying why, when called from a thread other than the
// main one in a process where plugin code has run. The atexit handler does this too late to be
// sure: the destructors of the statics made since it was registered run before it, while the
// main thread still uses them. So the mnrl program's own exit() calls this first.
void fail_if_exiting_from_another_thread();

}  // namespace mnrl::envs
