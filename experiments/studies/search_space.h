#pragma once

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace mnrl::experiments {

// A search space for `mnrl tune`: config keys and the values to try for each, from YAML such as
//
//   ppo.learning_rate: {type: log_uniform, low: 1.0e-5, high: 1.0e-2}
//   ppo.gae_lambda: {type: uniform, low: 0.8, high: 0.99}
//   ppo.n_epochs: {type: int, low: 3, high: 20}          # log: true samples its logarithm
//   ppo.n_steps: {type: categorical, choices: [256, 512, 1024]}
//
// (Optuna's suggest_float, suggest_float(log=True), suggest_int, suggest_categorical).
struct Parameter {
  enum class Kind { kUniform, kLogUniform, kInt, kCategorical };
  std::string key;  // a config key, as --set takes it
  Kind kind = Kind::kUniform;
  double low = 0.0, high = 0.0;      // bounds, inclusive (int: whole numbers)
  bool log = false;                  // int: sampled uniformly in log space
  std::vector<std::string> choices;  // categorical: each as YAML text
  int line = 0;                      // where the file defines it, for messages
};

// A value of a parameter: the number sampled (a categorical's index), and the text --set takes.
struct ParameterValue {
  double number = 0.0;
  std::string text;
};

// A search space that cannot be used; the message names the file, line and key.
class SearchSpaceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a search space file. Throws SearchSpaceError for what is not one: no parameters, an
// unknown type or field, an empty range (low >= high), a log range not above 0, a categorical
// with fewer than two choices or a repeated one, a key given twice.
std::vector<Parameter> read_search_space(const std::string& path);

// The value of `parameter` at `number` (a categorical: its index), rounded as the kind says.
ParameterValue value_of(const Parameter& parameter, double number);

// A value drawn uniformly from the parameter's range (log-uniformly where log).
ParameterValue draw(const Parameter& parameter, std::mt19937_64& random);

// The --set overrides that try each bound and each choice of every parameter, one at a time,
// for checking them against the config before any trial.
std::vector<std::pair<const Parameter*, std::string>> extreme_overrides(
    const std::vector<Parameter>& space);

}  // namespace mnrl::experiments
