#include "envs/mask_velocity.h"

#include <stdexcept>
#include <utility>

#include "envs/cartpole.h"
#include "envs/mountain_car.h"
#include "envs/mountain_car_continuous.h"
#include "envs/pendulum.h"

namespace mnrl::envs {

MaskVelocity::MaskVelocity(std::unique_ptr<Env> env, std::string id,
                           std::vector<std::size_t> velocity_indices)
    : ObservationWrapper(std::move(env), "MaskVelocity"),
      velocity_indices_(std::move(velocity_indices)) {
  const std::string name = "MaskVelocity(" + spec_.id + ")";
  const Box& box = expect_box(spec_.observation_space, name + ": observation space");
  if (box.dtype != core::Dtype::float32) {
    throw std::invalid_argument(name + ": observations are not float32");
  }
  for (const std::size_t index : velocity_indices_) {
    if (index >= box.low.size()) {
      throw std::invalid_argument(name + ": velocity index " + std::to_string(index) +
                                  " is past the observation's " + std::to_string(box.low.size()) +
                                  " entries");
    }
  }
  spec_.id = std::move(id);
}

void MaskVelocity::rewrite(core::TypedPtr observation) {
  float* values = observation.floats();
  for (const std::size_t index : velocity_indices_) values[index] = 0.0f;
}

std::string no_velocity_id(const std::string& id) {
  const std::size_t version = id.rfind("-v");
  if (version == std::string::npos) return id + "NoVel";
  return id.substr(0, version) + "NoVel" + id.substr(version);
}

void add_no_velocity_env(Registry& registry, const std::string& id, EnvFactory make_env,
                         std::vector<std::size_t> velocity_indices) {
  const std::string masked_id = no_velocity_id(id);
  registry.add(masked_id, EnvFactory([=](const core::Kwargs& kwargs) -> std::unique_ptr<Env> {
                 return std::make_unique<MaskVelocity>(make_env(kwargs), masked_id,
                                                       velocity_indices);
               }));
}

namespace {

// A factory of an env that reads no kwargs (the registry refuses any given to it).
template <class Type>
EnvFactory without_kwargs() {
  return [](const core::Kwargs&) -> std::unique_ptr<Env> { return std::make_unique<Type>(); };
}

// rl-zoo's velocity indices for the classic-control envs (the Box2D ones register beside their
// envs).
const bool kRegistered = [] {
  Registry& registry = Registry::global();
  add_no_velocity_env(registry, "CartPole-v1", without_kwargs<CartPole>(), {1, 3});
  add_no_velocity_env(registry, "MountainCar-v0", without_kwargs<MountainCar>(), {1});
  add_no_velocity_env(registry, "MountainCarContinuous-v0", without_kwargs<MountainCarContinuous>(),
                      {1});
  add_no_velocity_env(registry, "Pendulum-v1", without_kwargs<Pendulum>(), {2});
  return true;
}();

}  // namespace

}  // namespace mnrl::envs
