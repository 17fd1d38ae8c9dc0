#include "core/yaml_writer.h"

#include <algorithm>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include "core/scalar_text.h"

namespace mnrl::core {

std::string yaml_float(double value) {
  std::string text = format_number(value);
  if (text.find('.') == std::string::npos) {
    text.insert(std::min(text.find('e'), text.size()), ".0");
  }
  return text;
}

YamlWriter::YamlWriter() : out_(std::make_unique<YAML::Emitter>()) { *out_ << YAML::BeginMap; }

YamlWriter::~YamlWriter() = default;

YamlWriter& YamlWriter::key(std::string_view name) {
  *out_ << YAML::Key << std::string(name) << YAML::Value;
  return *this;
}

YamlWriter& YamlWriter::quoted_key(std::string_view name) {
  *out_ << YAML::Key << YAML::DoubleQuoted << std::string(name) << YAML::Value;
  return *this;
}

YamlWriter& YamlWriter::text(std::string_view value) {
  *out_ << YAML::DoubleQuoted << std::string(value);
  return *this;
}

YamlWriter& YamlWriter::number(double value) {
  *out_ << yaml_float(value);
  return *this;
}

YamlWriter& YamlWriter::integer(std::int64_t value) {
  *out_ << value;
  return *this;
}

YamlWriter& YamlWriter::boolean(bool value) {
  *out_ << YAML::TrueFalseBool << YAML::LowerCase << value;
  return *this;
}

YamlWriter& YamlWriter::begin_map(bool flow) {
  if (flow) *out_ << YAML::Flow;
  *out_ << YAML::BeginMap;
  return *this;
}

YamlWriter& YamlWriter::end_map() {
  *out_ << YAML::EndMap;
  return *this;
}

YamlWriter& YamlWriter::begin_list() {
  *out_ << YAML::BeginSeq;
  return *this;
}

YamlWriter& YamlWriter::end_list() {
  *out_ << YAML::EndSeq;
  return *this;
}

std::string YamlWriter::str() {
  *out_ << YAML::EndMap;
  if (!out_->good()) throw std::logic_error("YamlWriter: " + out_->GetLastError());
  return std::string(out_->c_str()) + "\n";
}

}  // namespace mnrl::core
