#include "envs/running_mean_std.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace mnrl::envs {
namespace {

constexpr double kInitialCount = 1e-4;  // SB3's epsilon

template <class T>
void batch_moments(const T* rows, std::size_t num_rows, std::size_t size,
                   std::vector<double>& mean, std::vector<double>& var) {
  mean.assign(size, 0.0);
  var.assign(size, 0.0);
  for (std::size_t r = 0; r < num_rows; ++r) {
    for (std::size_t j = 0; j < size; ++j) mean[j] += static_cast<double>(rows[r * size + j]);
  }
  for (double& m : mean) m /= static_cast<double>(num_rows);
  // Two passes, like numpy's var: the population variance (ddof 0).
  for (std::size_t r = 0; r < num_rows; ++r) {
    for (std::size_t j = 0; j < size; ++j) {
      const double d = static_cast<double>(rows[r * size + j]) - mean[j];
      var[j] += d * d;
    }
  }
  for (double& v : var) v /= static_cast<double>(num_rows);
}

}  // namespace

RunningMeanStd::RunningMeanStd(std::size_t size)
    : mean_(size, 0.0), var_(size, 1.0), count_(kInitialCount) {}

RunningMeanStd::RunningMeanStd(std::vector<double> mean, std::vector<double> var, double count)
    : mean_(std::move(mean)), var_(std::move(var)), count_(count) {
  if (mean_.size() != var_.size()) {
    throw std::invalid_argument("RunningMeanStd: " + std::to_string(mean_.size()) + " means and " +
                                std::to_string(var_.size()) + " variances");
  }
}

void RunningMeanStd::update(const float* rows, std::size_t num_rows) {
  if (num_rows == 0) return;
  std::vector<double> mean, var;
  batch_moments(rows, num_rows, size(), mean, var);
  add_moments(mean, var, static_cast<double>(num_rows));
}

void RunningMeanStd::update(const double* rows, std::size_t num_rows) {
  if (num_rows == 0) return;
  std::vector<double> mean, var;
  batch_moments(rows, num_rows, size(), mean, var);
  add_moments(mean, var, static_cast<double>(num_rows));
}

void RunningMeanStd::merge(const RunningMeanStd& other) {
  if (other.size() != size()) {
    throw std::invalid_argument("RunningMeanStd::merge: statistics of " +
                                std::to_string(other.size()) + " values cannot merge into " +
                                std::to_string(size()));
  }
  add_moments(other.mean_, other.var_, other.count_);
}

RunningMeanStd RunningMeanStd::added_since(const RunningMeanStd& earlier) const {
  if (earlier.size() != size()) {
    throw std::invalid_argument("RunningMeanStd::added_since: statistics of different sizes");
  }
  RunningMeanStd added(size());
  added.count_ = count_ - earlier.count_;
  if (!(added.count_ > 0)) {
    added.count_ = 0;
    return added;
  }
  for (std::size_t j = 0; j < size(); ++j) {
    const double mean = (mean_[j] * count_ - earlier.mean_[j] * earlier.count_) / added.count_;
    const double delta = mean - earlier.mean_[j];
    const double m2 = var_[j] * count_ - earlier.var_[j] * earlier.count_ -
                      delta * delta * earlier.count_ * added.count_ / count_;
    added.mean_[j] = mean;
    added.var_[j] = std::max(m2 / added.count_, 0.0);
  }
  return added;
}

void RunningMeanStd::add_moments(const std::vector<double>& mean, const std::vector<double>& var,
                                 double count) {
  if (count == 0) return;  // nothing added (see added_since)
  // SB3's update_from_moments, element by element.
  const double total = count_ + count;
  for (std::size_t j = 0; j < size(); ++j) {
    const double delta = mean[j] - mean_[j];
    const double m2 = var_[j] * count_ + var[j] * count + delta * delta * count_ * count / total;
    mean_[j] = mean_[j] + delta * count / total;
    var_[j] = m2 / total;
  }
  count_ = total;
}

void RunningMeanStd::save_state(core::StateWriter& out) const { core::save_fields(out, *this); }

void RunningMeanStd::load_state(core::StateReader& in) {
  // Into a copy first: statistics whose state is refused stay as they were.
  RunningMeanStd loaded = *this;
  core::load_fields(in, loaded);
  if (!(loaded.count_ > 0) || !std::isfinite(loaded.count_)) {
    in.fail("running statistics with a count that is not > 0");
  }
  for (std::size_t j = 0; j < size(); ++j) {
    if (!std::isfinite(loaded.mean_[j]) || !std::isfinite(loaded.var_[j]) || loaded.var_[j] < 0) {
      in.fail("running statistics with a mean or variance that is not finite or is negative");
    }
  }
  *this = std::move(loaded);
}

}  // namespace mnrl::envs
