#pragma once

// The env plugin SDK: what a shared library needs to add environments to mnrl at run time.
// A plugin includes this header (no LibTorch needed), links mnrl::envs, and declares its envs
// in one MNRL_PLUGIN block:
//
//   #include "envs/plugin.h"
//
//   class GridWorld final : public mnrl::envs::Env { ... };
//
//   MNRL_PLUGIN(registry) {
//     registry.add<GridWorld>("GridWorld-v0");
//   }
//
// Protocol: MNRL_PLUGIN defines one exported C function, mnrl_env_plugin_entry, that returns a
// MnrlEnvPluginInfo. The loader (envs/plugin_loader.h) opens the library (its symbols must all
// resolve; a plugin built against another mnrl usually fails here, and is told so), finds the
// entry point with dlsym, checks `magic`, the SDK version and the C++ ABI before calling
// anything else of the plugin, then calls register_envs with a fresh Registry and moves what it
// registered into the global one. The first three fields of
// MnrlEnvPluginInfo never change, so any mnrl can read the version of any plugin; the fields
// after them belong to the SDK major version.

#include <cstdint>

#include "core/version.h"
#include "envs/registry.h"

// Major: changes that break plugins (the Env interface, core::Kwargs or Registry as a plugin
// sees them inline, this struct after its first three fields). Minor: additions a plugin built
// against an older minor can ignore. A plugin loads when its major equals mnrl's and its minor is
// not newer. 1.1: envs::StatefulEnv (envs/saved_state.h), optional, for exact resume from
// checkpoints. 2.0: observations through core::TypedPtr (uint8 Box spaces), Env::render().
#define MNRL_ENV_SDK_VERSION_MAJOR 2
#define MNRL_ENV_SDK_VERSION_MINOR 0

// "mnrl" in ASCII: tells an mnrl entry point from an unrelated symbol of the same name.
#define MNRL_ENV_PLUGIN_MAGIC 0x6d6e726cu

extern "C" {
struct MnrlEnvPluginInfo {
  std::uint32_t magic;      // MNRL_ENV_PLUGIN_MAGIC
  std::uint32_t sdk_major;  // MNRL_ENV_SDK_VERSION_MAJOR of the SDK the plugin was built with
  std::uint32_t sdk_minor;  // MNRL_ENV_SDK_VERSION_MINOR
  // -- SDK 1.x and 2.x --
  const char* mnrl_version;  // version of the mnrl whose headers built the plugin
  std::uint32_t cxx11_abi;   // _GLIBCXX_USE_CXX11_ABI (std::string layout), 0 or 1
  void (*register_envs)(mnrl::envs::Registry& registry);
};
}

#if defined(_GLIBCXX_USE_CXX11_ABI)
#define MNRL_ENV_PLUGIN_CXX11_ABI _GLIBCXX_USE_CXX11_ABI
#else
#define MNRL_ENV_PLUGIN_CXX11_ABI 1
#endif

// MNRL_PLUGIN(registry) { registry.add<MyEnv>("MyEnv-v0"); }: the body registers the plugin's
// envs. Use it once per plugin, in a .cpp file.
#define MNRL_PLUGIN(registry_name)                                                              \
  static void mnrl_env_plugin_register(::mnrl::envs::Registry& registry_name);                  \
  extern "C" __attribute__((visibility("default"))) const MnrlEnvPluginInfo*                    \
  mnrl_env_plugin_entry() {                                                                     \
    static const MnrlEnvPluginInfo info{MNRL_ENV_PLUGIN_MAGIC,      MNRL_ENV_SDK_VERSION_MAJOR, \
                                        MNRL_ENV_SDK_VERSION_MINOR, MNRL_VERSION_STRING,        \
                                        MNRL_ENV_PLUGIN_CXX11_ABI,  &mnrl_env_plugin_register}; \
    return &info;                                                                               \
  }                                                                                             \
  static void mnrl_env_plugin_register(::mnrl::envs::Registry& registry_name)
