#include "envs/box2d/box2d_engine.h"

#include <box2d/box2d.h>

namespace mnrl::envs {

std::string box2d_version() {
  return std::to_string(b2_version.major) + "." + std::to_string(b2_version.minor) + "." +
         std::to_string(b2_version.revision);
}

}  // namespace mnrl::envs
