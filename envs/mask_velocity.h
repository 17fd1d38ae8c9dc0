#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "envs/registry.h"
#include "envs/wrapper.h"

namespace mnrl::envs {

// rl-zoo's MaskVelocityWrapper (sb3-contrib): the observation with its velocity entries set to
// zero, the observation space unchanged, so that a policy must infer velocities from the past:
// the partially observed tasks recurrent policies are tested on. The spec takes the masked
// env's id.
class MaskVelocity final : public ObservationWrapper {
 public:
  // Throws std::invalid_argument unless the inner observation space is a float32 Box holding
  // every index.
  MaskVelocity(std::unique_ptr<Env> env, std::string id, std::vector<std::size_t> velocity_indices);

 private:
  void rewrite(core::TypedPtr observation) override;

  std::vector<std::size_t> velocity_indices_;
};

// rl-zoo's name of a velocity-masked env: "CartPole-v1" -> "CartPoleNoVel-v1".
std::string no_velocity_id(const std::string& id);

// Registers no_velocity_id(id): the env `make_env` builds (without its time limit: the
// registry adds the spec's) with `velocity_indices` masked.
void add_no_velocity_env(Registry& registry, const std::string& id, EnvFactory make_env,
                         std::vector<std::size_t> velocity_indices);

}  // namespace mnrl::envs
