#pragma once

#include <cstddef>
#include <vector>

#include "core/state_fields.h"
#include "core/state_stream.h"

namespace mnrl::envs {

// Per-element running mean and variance of a stream of rows (SB3's RunningMeanStd), combined
// with Chan et al.'s parallel formula, so statistics gathered apart (by other envs, processes or
// runs) merge into what one stream would have given. Starts at mean 0, variance 1 and a count of
// 1e-4, as SB3 does, so the first update dominates without dividing by zero.
class RunningMeanStd {
 public:
  explicit RunningMeanStd(std::size_t size);
  // Statistics gathered elsewhere (another process's), from their moments. Throws
  // std::invalid_argument for mean and var of different sizes.
  RunningMeanStd(std::vector<double> mean, std::vector<double> var, double count);

  std::size_t size() const { return mean_.size(); }
  const std::vector<double>& mean() const { return mean_; }
  const std::vector<double>& var() const { return var_; }
  double count() const { return count_; }

  // Adds `num_rows` rows of size() values each, laid out row after row.
  void update(const float* rows, std::size_t num_rows);
  void update(const double* rows, std::size_t num_rows);
  // Adds statistics gathered elsewhere. Throws std::invalid_argument on a size mismatch.
  void merge(const RunningMeanStd& other);
  // What was added to `earlier` to make these statistics (this = earlier merged with the
  // result), by inverting the merge; a count of 0 if nothing was. Processes that start from the
  // same statistics send each other this and merge it, in the same order, to agree again.
  RunningMeanStd added_since(const RunningMeanStd& earlier) const;

  // For checkpoints, bit for bit. load_state() keeps the size and refuses a non-positive count
  // or a negative or non-finite moment (core::StateError), leaving the statistics unchanged.
  void save_state(core::StateWriter& out) const;
  void load_state(core::StateReader& in);

 private:
  void add_moments(const std::vector<double>& mean, const std::vector<double>& var, double count);

  std::vector<double> mean_, var_;
  double count_;

  friend struct core::StateFieldsAccess;
  template <class Fields>
  void state_fields(Fields& fields) {
    fields(count_, mean_, var_);
  }
};

}  // namespace mnrl::envs
