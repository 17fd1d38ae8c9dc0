#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace YAML {
class Emitter;
}

namespace mnrl::core {

// Writes the YAML files the project keeps besides config.yaml (run_info.yaml, summary.yaml,
// checkpoint manifests) through yaml-cpp's emitter: strings double-quoted and escaped (a command
// line with a quote or a newline stays one string), floats that read back as the same double.
//
//   YamlWriter out;
//   out.key("steps").integer(512).key("final_evaluation").begin_map();
//   out.key("mean_return").number(498.5).end_map();
//   write_file_atomically(path, out.str());
class YamlWriter {
 public:
  YamlWriter();  // a block map is open: key() / value pairs follow
  ~YamlWriter();

  YamlWriter& key(std::string_view name);
  // A key written double-quoted (one that comes from the user: a config key path).
  YamlWriter& quoted_key(std::string_view name);
  YamlWriter& text(std::string_view value);
  YamlWriter& number(double value);
  YamlWriter& integer(std::int64_t value);
  YamlWriter& boolean(bool value);
  // `flow`: on one line, {a: 1, b: 2}.
  YamlWriter& begin_map(bool flow = false);
  YamlWriter& end_map();
  YamlWriter& begin_list();
  YamlWriter& end_list();

  // The document, the top-level map closed, ending in a newline. Throws std::logic_error for
  // an unbalanced document.
  std::string str();

 private:
  std::unique_ptr<YAML::Emitter> out_;
};

// A double as YAML text that reads back as the same double, always with a '.' ("3.0",
// "1.0e-05") or as .inf/.nan, so that YAML 1.1 readers such as PyYAML also read a float.
std::string yaml_float(double value);

}  // namespace mnrl::core
