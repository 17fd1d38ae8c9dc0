#include "apps/checkpoint_command_errors.h"

#include <cstdio>
#include <exception>

#include "apps/commands.h"
#include "core/config.h"
#include "core/files.h"
#include "core/state_stream.h"
#include "experiments/checkpoints/checkpoint.h"
#include "experiments/evaluation/episode_video.h"

namespace mnrl::apps {

int run_checkpoint_command(const std::string& command, const std::function<int()>& body) {
  const char* name = command.c_str();
  try {
    return body();
  } catch (const experiments::CheckpointError& e) {
    std::fprintf(stderr, "mnrl %s: %s\n", name, e.what());
  } catch (const core::ConfigError& e) {
    std::fprintf(stderr, "mnrl %s: config error in the checkpoint: %s\n", name, e.what());
  } catch (const core::StateError& e) {
    std::fprintf(stderr, "mnrl %s: %s\n", name, e.what());
  } catch (const core::FileError& e) {
    std::fprintf(stderr, "mnrl %s: %s\n", name, e.what());
  } catch (const experiments::VideoRequestError& e) {
    std::fprintf(stderr, "mnrl %s: %s\n", name, e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mnrl %s: error: %s\n", name, e.what());
    return kExitFailure;
  }
  return kExitUsage;
}

}  // namespace mnrl::apps
