#include "envs/flicker.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "core/seed_streams.h"

namespace mnrl::envs {

Flicker::Flicker(std::unique_ptr<Env> env, double probability)
    : ObservationWrapper(std::move(env), "Flicker"), probability_(probability) {
  const std::string name = "Flicker(" + spec_.id + ")";
  const Box& box = expect_box(spec_.observation_space, name + ": observation space");
  if (!(probability >= 0.0 && probability <= 1.0)) {
    throw std::invalid_argument(name + ": probability is " + std::to_string(probability) +
                                ", must be in [0, 1]");
  }
  observation_bytes_ = box.low.size() * core::element_bytes(box.dtype);
}

void Flicker::load_own_state(core::StateReader& in) {
  core::Rng::State state;
  in.values(state);
  rng_.set_state(state);
}

void Flicker::rewrite(core::TypedPtr observation) {
  if (rng_.uniform() < probability_) std::memset(observation.data(), 0, observation_bytes_);
}

void Flicker::reset(core::TypedPtr observation, std::optional<std::uint64_t> seed) {
  if (seed) rng_.reseed(core::derive_seed(*seed, core::kFlickerStream));
  ObservationWrapper::reset(observation, seed);
}

}  // namespace mnrl::envs
