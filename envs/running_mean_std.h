#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mnrl::envs {

// Per-element running mean and variance of a stream of rows (SB3's RunningMeanStd), combined
// with Chan et al.'s parallel formula, so statistics gathered apart (by other envs, processes or
// runs) merge into what one stream would have given. Starts at mean 0, variance 1 and a count of
// 1e-4, as SB3 does, so the first update dominates without dividing by zero.
class RunningMeanStd {
 public:
  explicit RunningMeanStd(std::size_t size);

  std::size_t size() const { return mean_.size(); }
  const std::vector<double>& mean() const { return mean_; }
  const std::vector<double>& var() const { return var_; }
  double count() const { return count_; }

  // Adds `num_rows` rows of size() values each, laid out row after row.
  void update(const float* rows, std::size_t num_rows);
  void update(const double* rows, std::size_t num_rows);
  // Adds statistics gathered elsewhere. Throws std::invalid_argument on a size mismatch.
  void merge(const RunningMeanStd& other);

  // A small text form that reads back bit for bit. parse() throws std::runtime_error naming
  // `source` and the line for malformed text or impossible values (negative variance, ...).
  std::string serialize() const;
  static RunningMeanStd parse(const std::string& text, const std::string& source);
  // Writes atomically; load() also checks the size. Both throw std::runtime_error naming the file.
  void save(const std::string& path) const;
  static RunningMeanStd load(const std::string& path, std::size_t expected_size);

 private:
  void add_moments(const std::vector<double>& mean, const std::vector<double>& var, double count);

  std::vector<double> mean_, var_;
  double count_;
};

}  // namespace mnrl::envs
