#include "core/rng.h"

#include <cmath>

namespace mnrl::core {
namespace {

__extension__ using uint128 = unsigned __int128;  // GCC/Clang extension, for Lemire's method

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t x = seed;
  const std::uint64_t a = splitmix64(x);
  x = a ^ (stream * 0xd1b54a32d192ed03ULL);
  return splitmix64(x);
}

void Rng::reseed(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& word : state_) word = splitmix64(x);
}

std::uint64_t Rng::below(std::uint64_t n) {
  uint128 product = static_cast<uint128>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(product);
  if (low < n) {
    const std::uint64_t threshold = -n % n;
    while (low < threshold) {
      product = static_cast<uint128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

double Rng::normal() {
  const double radius = std::sqrt(-2.0 * std::log(1.0 - uniform()));  // 1 - u is in (0, 1]
  return radius * std::cos(2.0 * 3.14159265358979323846 * uniform());
}

}  // namespace mnrl::core
