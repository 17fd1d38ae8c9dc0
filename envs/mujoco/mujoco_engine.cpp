#include "envs/mujoco/mujoco_engine.h"

#include <mujoco/mujoco.h>

namespace mnrl::envs {

std::string mujoco_version() { return mj_versionString(); }

}  // namespace mnrl::envs
