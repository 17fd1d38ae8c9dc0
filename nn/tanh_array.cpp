#include "nn/tanh_array.h"

#include <cstring>

// The lane helpers are always inlined, so GCC's note about the ABI of passing vectors to
// functions (which differs with and without AVX) does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace mnrl::nn {
namespace {

// Eight lanes through GCC/Clang vector extensions: AVX2 where the CPU has it (target_clones
// below), pairs of SSE registers elsewhere. Same operations in the same order on every path
// (no FMA contraction), so every x86-64 CPU gives the same bits.
using Floats = float __attribute__((vector_size(32)));
using Ints = std::int32_t __attribute__((vector_size(32)));
constexpr int kLanes = 8;
// Inlined into each target clone, so vectors never cross a call boundary.
#define MNRL_LANES_INLINE inline __attribute__((always_inline))

MNRL_LANES_INLINE Floats splat(float value) { return Floats{} + value; }

// exp(v) for v in [-87, 0]: v = k ln2 + r with |r| <= ln2/2, exp(r) by its Taylor series to
// r^7 (relative error < 1e-8), 2^k written into the float's exponent bits.
MNRL_LANES_INLINE Floats exp_nonpositive(Floats v) {
  const float kLog2e = 1.44269504088896341f;
  const float kLn2High = 0.693145751953125f;  // ln2 split so that k * kLn2High is exact
  const float kLn2Low = 1.42860682030941723212e-6f;
  v = v < -87.0f ? splat(-87.0f) : v;
  const Ints k_int = __builtin_convertvector(v * kLog2e - 0.5f, Ints);  // rounds, as v <= 0
  const Floats k = __builtin_convertvector(k_int, Floats);
  const Floats r = (v - k * kLn2High) - k * kLn2Low;
  Floats p = splat(1.0f / 5040.0f);
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const Ints exponent_bits = (k_int + 127) << 23;
  Floats scale;
  std::memcpy(&scale, &exponent_bits, sizeof scale);
  return p * scale;
}

MNRL_LANES_INLINE Floats tanh_lanes(Floats x) {
  const Floats a = x < 0.0f ? -x : x;
  // Small |x|: the odd Taylor series to x^9 (relative error < 1e-8 below 0.25).
  const Floats a2 = a * a;
  Floats series = splat(62.0f / 2835.0f);
  series = series * a2 - 17.0f / 315.0f;
  series = series * a2 + 2.0f / 15.0f;
  series = series * a2 - 1.0f / 3.0f;
  series = (series * a2) * a + a;
  // Larger |x|: (1 - e^-2a) / (1 + e^-2a), free of harmful cancellation above 0.25.
  const Floats t = exp_nonpositive(-2.0f * a);
  const Floats ratio = (1.0f - t) / (1.0f + t);
  const Floats magnitude = a < 0.25f ? series : ratio;
  return x < 0.0f ? -magnitude : magnitude;
}

}  // namespace

__attribute__((target_clones("avx2", "default")))
void tanh_of_array(const float* x, float* y, std::int64_t n) {
  Floats lanes;
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    std::memcpy(&lanes, x + i, sizeof lanes);
    lanes = tanh_lanes(lanes);
    std::memcpy(y + i, &lanes, sizeof lanes);
  }
  if (i < n) {  // the tail goes through the same lanes, padded
    lanes = Floats{};
    const auto tail = static_cast<std::size_t>(n - i);
    std::memcpy(&lanes, x + i, tail * sizeof(float));
    lanes = tanh_lanes(lanes);
    std::memcpy(y + i, &lanes, tail * sizeof(float));
  }
}

}  // namespace mnrl::nn
