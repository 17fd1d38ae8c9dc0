#pragma once

#include <array>
#include <cstdint>

namespace mnrl::core {

// Mixes a seed with a stream number (env index, rank, ...) into an independent seed, so one
// experiment seed derives every generator. splitmix64 finalizer over both inputs.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

// xoshiro256** generator: fast, small state, same sequence on every platform (unlike the
// std:: distributions, whose output depends on the standard library).
class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) { reseed(seed); }

  void reseed(std::uint64_t seed);

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  // Uniform integer in [0, n), n > 0 (Lemire's nearly divisionless method, unbiased).
  std::uint64_t below(std::uint64_t n);
  // Standard normal, by Box-Muller from two uniform() draws (the second value is not kept, so
  // state() alone is the generator's whole state).
  double normal();

  using State = std::array<std::uint64_t, 4>;
  const State& state() const { return state_; }
  void set_state(const State& state) { state_ = state; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  State state_{};
};

}  // namespace mnrl::core
