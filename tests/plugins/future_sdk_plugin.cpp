// A plugin from a future mnrl: its entry point reports env SDK 3.0. Only the three fields that
// never change are filled in; the loader must not read further.
#include <cstdint>

#include "envs/plugin.h"

extern "C" __attribute__((visibility("default"))) const MnrlEnvPluginInfo* mnrl_env_plugin_entry() {
  static const MnrlEnvPluginInfo info{MNRL_ENV_PLUGIN_MAGIC, 3, 0, nullptr, 0, nullptr};
  return &info;
}
