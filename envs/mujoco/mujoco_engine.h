#pragma once

#include <string>

namespace mnrl::envs {

// The MuJoCo library the envs of this folder run on: "2.2.2".
std::string mujoco_version();

}  // namespace mnrl::envs
