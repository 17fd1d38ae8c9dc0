#pragma once

#include <string>
#include <vector>

namespace mnrl::experiments {

// A physics engine that built-in envs run on, and whether this build of mnrl has it.
struct PhysicsEngine {
  std::string name;     // "Box2D"
  std::string version;  // "2.4.1"; empty when mnrl was built without it
  std::string envs;     // the envs it brings: "LunarLander-v2, LunarLanderContinuous-v2"
  std::string package;  // the Debian package that provides it: "libbox2d-dev"
};

// Every engine mnrl knows, built or not (`mnrl envs` names the missing ones and why).
std::vector<PhysicsEngine> physics_engines();

// The built ones as "Box2D 2.4.1, MuJoCo 2.2.2" ("none" if none), for run_info.yaml and
// `mnrl --version`.
std::string physics_engines_description();

}  // namespace mnrl::experiments
