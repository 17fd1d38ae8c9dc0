#pragma once

#include <array>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mnrl::envs::test_envs {

// One of the reference CSVs in tests/data: transitions recorded from Gymnasium 0.29.1, one row
// per step, every field a number (columns: episode, t, state*, action*, reward, terminated,
// truncated, next_state*, next_obs*). Values are read with strtod, which turns Python's shortest
// repr back into the exact double.
class ReferenceCsv {
 public:
  // Reads MNRL_TEST_DATA_DIR/`file_name`. Throws std::runtime_error if the file is missing or a
  // row is malformed (wrong field count, a field that does not parse as a number).
  static ReferenceCsv load(const std::string& file_name) {
    const std::string path = std::string(MNRL_TEST_DATA_DIR) + "/" + file_name;
    std::ifstream file(path);
    if (!file) throw std::runtime_error("cannot open " + path);
    ReferenceCsv csv;
    std::string line;
    if (!std::getline(file, line)) throw std::runtime_error(path + " is empty");
    const std::vector<std::string> header = split(line);
    for (std::size_t i = 0; i < header.size(); ++i) csv.column_[header[i]] = i;
    int line_number = 1;
    while (std::getline(file, line)) {
      ++line_number;
      const std::vector<std::string> fields = split(line);
      if (fields.empty()) continue;
      const std::string where = path + ":" + std::to_string(line_number);
      if (fields.size() != header.size()) {
        throw std::runtime_error(where + ": " + std::to_string(fields.size()) +
                                 " fields, header has " + std::to_string(header.size()));
      }
      std::vector<double> values;
      for (const std::string& field : fields) {
        char* end = nullptr;
        values.push_back(std::strtod(field.c_str(), &end));
        if (field.empty() || *end != '\0') {
          throw std::runtime_error(where + ": '" + field + "' is not a number");
        }
      }
      csv.rows_.push_back(std::move(values));
    }
    return csv;
  }

  std::size_t size() const { return rows_.size(); }

  // The value in column `name` of row `row`; throws std::out_of_range for an unknown column.
  double get(std::size_t row, const std::string& name) const {
    const auto it = column_.find(name);
    if (it == column_.end()) throw std::out_of_range("no column '" + name + "'");
    return rows_.at(row).at(it->second);
  }

  // Columns `prefix`0 .. `prefix`N-1 of row `row` ("state" -> state0, state1, ...).
  template <std::size_t N>
  std::array<double, N> get(std::size_t row, const std::string& prefix) const {
    std::array<double, N> values{};
    for (std::size_t i = 0; i < N; ++i) values[i] = get(row, prefix + std::to_string(i));
    return values;
  }

  // How many columns `prefix`0, `prefix`1, ... there are.
  std::size_t count(const std::string& prefix) const {
    std::size_t n = 0;
    while (column_.count(prefix + std::to_string(n)) > 0) ++n;
    return n;
  }

 private:
  // Fields of one line; a trailing '\r' (the files have CRLF line ends) is dropped.
  static std::vector<std::string> split(std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> fields;
    if (line.empty()) return fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, ',')) fields.push_back(field);
    if (line.back() == ',') fields.emplace_back();  // getline drops an empty last field
    return fields;
  }

  std::map<std::string, std::size_t> column_;
  std::vector<std::vector<double>> rows_;
};

}  // namespace mnrl::envs::test_envs
