#include "envs/running_mean_std.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/run_directory.h"

namespace mnrl::envs {
namespace {

constexpr double kInitialCount = 1e-4;  // SB3's epsilon
constexpr const char* kHeader = "mnrl-running-mean-std 1";

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

std::string format_values(const std::vector<double>& values) {
  std::string text;
  char buffer[32];
  for (const double value : values) {
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    text += ' ';
    text.append(buffer, end);
  }
  return text;
}

// Reads "<name> v1 v2 ..." with exactly `count` finite numbers.
std::vector<double> parse_line(const std::string& line, const std::string& name, std::size_t count,
                               const std::string& where) {
  std::istringstream in(line);
  std::string word;
  in >> word;
  if (word != name) throw std::runtime_error(where + ": expected '" + name + " ...'");
  std::vector<double> values;
  while (in >> word) {
    double value = 0;
    const auto result = std::from_chars(word.data(), word.data() + word.size(), value);
    if (result.ec != std::errc() || result.ptr != word.data() + word.size() ||
        !std::isfinite(value)) {
      throw std::runtime_error(where + ": '" + word + "' is not a finite number");
    }
    values.push_back(value);
  }
  if (values.size() != count) {
    throw std::runtime_error(where + ": expected " + std::to_string(count) + " value(s) after '" +
                             name + "', found " + std::to_string(values.size()));
  }
  return values;
}

}  // namespace

RunningMeanStd::RunningMeanStd(std::size_t size)
    : mean_(size, 0.0), var_(size, 1.0), count_(kInitialCount) {}

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

void RunningMeanStd::add_moments(const std::vector<double>& mean, const std::vector<double>& var,
                                 double count) {
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

std::string RunningMeanStd::serialize() const {
  return std::string(kHeader) + "\nsize " + std::to_string(size()) + "\ncount" +
         format_values({count_}) + "\nmean" + format_values(mean_) + "\nvar" +
         format_values(var_) + "\n";
}

RunningMeanStd RunningMeanStd::parse(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string lines[5];
  for (int i = 0; i < 5; ++i) {
    if (!std::getline(in, lines[i])) {
      throw std::runtime_error(source + ": truncated: expected 5 lines (header, size, count, "
                               "mean, var), found " + std::to_string(i));
    }
  }
  const auto where = [&source](int line) { return source + ":" + std::to_string(line + 1); };
  if (lines[0] != kHeader) {
    throw std::runtime_error(where(0) + ": not running mean/std statistics (expected '" +
                             kHeader + "')");
  }
  const double size = parse_line(lines[1], "size", 1, where(1))[0];
  if (size < 1 || size != std::floor(size)) {
    throw std::runtime_error(where(1) + ": size must be a positive integer");
  }
  RunningMeanStd stats(static_cast<std::size_t>(size));
  stats.count_ = parse_line(lines[2], "count", 1, where(2))[0];
  if (!(stats.count_ > 0)) throw std::runtime_error(where(2) + ": count must be > 0");
  stats.mean_ = parse_line(lines[3], "mean", stats.size(), where(3));
  stats.var_ = parse_line(lines[4], "var", stats.size(), where(4));
  for (const double v : stats.var_) {
    if (v < 0) throw std::runtime_error(where(4) + ": a variance is negative");
  }
  return stats;
}

void RunningMeanStd::save(const std::string& path) const {
  core::write_file_atomically(path, serialize());
}

RunningMeanStd RunningMeanStd::load(const std::string& path, std::size_t expected_size) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read statistics file '" + path + "'");
  std::ostringstream text;
  text << file.rdbuf();
  RunningMeanStd stats = parse(text.str(), path);
  if (stats.size() != expected_size) {
    throw std::runtime_error(path + ": statistics are for " + std::to_string(stats.size()) +
                             " value(s), expected " + std::to_string(expected_size));
  }
  return stats;
}

}  // namespace mnrl::envs
