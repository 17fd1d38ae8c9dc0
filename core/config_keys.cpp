#include "core/config_keys.h"

#include "core/scalar_text.h"

namespace mnrl::core {
namespace {

class KeyLister final : public ConfigVisitor {
 public:
  explicit KeyLister(std::vector<ConfigKey>& keys) : keys_(keys) {}

  void field(std::string_view key, bool& value, std::string_view help) override {
    add(key, "bool", value ? "true" : "false", {}, help);
  }
  void field(std::string_view key, int& value, std::string_view help,
             const Limits& limits) override {
    add(key, "integer", std::to_string(value), limits, help);
  }
  void field(std::string_view key, std::int64_t& value, std::string_view help,
             const Limits& limits) override {
    add(key, "integer", std::to_string(value), limits, help);
  }
  void field(std::string_view key, double& value, std::string_view help,
             const Limits& limits) override {
    add(key, "number", format_number(value), limits, help);
  }
  void field(std::string_view key, std::optional<double>& value, std::string_view help,
             const Limits& limits) override {
    add(key, "number or null", value ? format_number(*value) : "null", limits, help);
  }
  void field(std::string_view key, std::string& value, std::string_view help,
             const Limits& limits) override {
    add(key, "string", value.empty() ? "\"\"" : value, limits, help);
  }
  void field(std::string_view key, std::vector<std::int64_t>& value, std::string_view help,
             const Limits& limits) override {
    std::string text = "[";
    for (std::size_t i = 0; i < value.size(); ++i) {
      text += (i ? ", " : "") + std::to_string(value[i]);
    }
    add(key, "list of integers", text + "]", limits, help);
  }
  void field(std::string_view key, Kwargs&, std::string_view help) override {
    add(key, "mapping", "{}", {}, help);
  }

 protected:
  void enter_section(std::string_view key, std::string_view help) override {
    add(key, "section", "", {}, help);
    path_.push_back(std::string(key));
  }
  void leave_section() override { path_.pop_back(); }
  std::optional<std::size_t> enter_list(std::string_view key, std::string_view help) override {
    add(key, "list", "[]", {}, help);
    path_.push_back(std::string(key) + "[]");
    return 1;  // one default item describes them all
  }
  void enter_item(std::size_t, std::string_view) override { path_.push_back(""); }
  void leave_list() override { path_.pop_back(); }

 private:
  void add(std::string_view key, std::string type, std::string default_value,
           const Limits& limits, std::string_view help) {
    std::string path;
    for (const auto& part : path_) {
      if (!part.empty()) path += part + ".";
    }
    const bool any = limits.choices.empty() && limits.describe() == "any number";
    keys_.push_back({path + std::string(key), std::move(type), std::move(default_value),
                     any ? "" : limits.describe(), std::string(help)});
  }

  std::vector<ConfigKey>& keys_;
  std::vector<std::string> path_;
};

std::string escaped_cell(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

std::vector<ConfigKey> config_keys(const VisitFunction& visit_root) {
  std::vector<ConfigKey> keys;
  KeyLister lister(keys);
  visit_root(lister);
  return keys;
}

std::string config_keys_markdown(const std::vector<ConfigKey>& keys) {
  std::string out;
  bool in_table = false;
  const auto begin_table = [&] {
    out += "| key | type | default | accepts | meaning |\n|---|---|---|---|---|\n";
    in_table = true;
  };
  for (const ConfigKey& key : keys) {
    const bool top_level_section =
        key.type == "section" && key.path.find('.') == std::string::npos;
    if (top_level_section) {
      out += std::string(in_table || !out.empty() ? "\n" : "") + "## `" + key.path + ":` " +
             key.help + "\n\n";
      in_table = false;
      continue;
    }
    if (out.empty()) out += "## Top-level keys\n\n";
    if (!in_table) begin_table();
    out += "| `" + key.path + "` | " + key.type + " | " +
           (key.default_value.empty() ? "" : "`" + escaped_cell(key.default_value) + "`") +
           " | " + escaped_cell(key.range) + " | " + escaped_cell(key.help) + " |\n";
  }
  return out;
}

}  // namespace mnrl::core
