#pragma once

#include <string>

namespace mnrl::envs {

// The Box2D library the envs of this folder run on: "2.4.1".
std::string box2d_version();

}  // namespace mnrl::envs
