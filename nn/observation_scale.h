#pragma once

#include <vector>

namespace mnrl::nn {

// An observation normalization folded into an exported policy: each value becomes
// (x - mean) / std, clipped to [-clip, clip], computed in double as envs::NormalizeObservation
// does, then rounded to float.
struct ObservationScale {
  std::vector<double> mean, std;
  double clip = 0.0;
};

}  // namespace mnrl::nn
