#include "experiments/runs/physics_engines.h"

#if MNRL_WITH_BOX2D
#include "envs/box2d/box2d_engine.h"
#endif
#if MNRL_WITH_MUJOCO
#include "envs/mujoco/mujoco_engine.h"
#endif

namespace mnrl::experiments {

std::vector<PhysicsEngine> physics_engines() {
  // Calling into each engine's library also keeps it linked (and its envs registered) with
  // linkers that drop unreferenced shared libraries (--as-needed).
  PhysicsEngine box2d{
      "Box2D", "",
      "LunarLander-v2, LunarLanderContinuous-v2, BipedalWalker-v3, BipedalWalkerHardcore-v3",
      "libbox2d-dev"};
#if MNRL_WITH_BOX2D
  box2d.version = envs::box2d_version();
#endif
  PhysicsEngine mujoco{"MuJoCo", "",
                       "mnrl/InvertedPendulum-v0, mnrl/InvertedDoublePendulum-v0, mnrl/Reacher-v0, "
                       "mnrl/Hopper-v0, mnrl/Humanoid-v0",
                       "libmujoco-dev"};
#if MNRL_WITH_MUJOCO
  mujoco.version = envs::mujoco_version();
#endif
  return {box2d, mujoco};
}

std::string physics_engines_description() {
  std::string description;
  for (const PhysicsEngine& engine : physics_engines()) {
    if (engine.version.empty()) continue;
    if (!description.empty()) description += ", ";
    description += engine.name + " " + engine.version;
  }
  return description.empty() ? "none" : description;
}

}  // namespace mnrl::experiments
