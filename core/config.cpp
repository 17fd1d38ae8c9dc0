#include "core/config.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

#include "core/files.h"
#include "core/kwargs.h"
#include "core/scalar_text.h"
#include "core/yaml_writer.h"
#include "core/text.h"

namespace mnrl::core {
namespace {

// ---------------------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------------------

// True if a YAML reader would take the plain scalar `text` for something other than a string.
bool reads_as_non_string(const std::string& text) {
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL" ||
         parse_number(text) || parse_bool(text);
}

// "'abc'", "null", "a sequence": what the user wrote, for "expected X, got Y" messages.
std::string describe_node(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: return "'" + elided(node.Scalar()) + "'";
    case YAML::NodeType::Sequence: return "a sequence";
    case YAML::NodeType::Map: return "a mapping";
    default: return "null";
  }
}

// ---------------------------------------------------------------------------------------------
// Paths and locations
// ---------------------------------------------------------------------------------------------

std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (const char c : text) {
    if (c == separator) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

// A key a --set can name: the field names of Options structs are C++ identifiers.
bool is_name(const std::string& key) {
  const auto is_word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  return !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0])) &&
         std::all_of(key.begin(), key.end(), is_word_char);
}

// "file:line:col" (1-based), or just "file" for a node without a position.
std::string file_location(const std::string& source_name, const YAML::Mark& mark) {
  if (mark.is_null()) return source_name;
  return source_name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// A key and its value in a mapping. Held by value: assigning one YAML::Node to another would
// overwrite the tree, so code here constructs nodes or reset()s them, never assigns.
struct KeyValue {
  YAML::Node key;
  YAML::Node value;

  KeyValue& operator=(const KeyValue&) = delete;

  // Where to point at the value. An empty value ("gamma:") is null and yaml-cpp places it at
  // the next token, often on the next line, so point at its key instead.
  YAML::Mark value_mark() const { return value.IsNull() ? key.Mark() : value.Mark(); }
};

// The entry for `key` in `map`, if `map` is a mapping that has it.
std::optional<KeyValue> find_entry(const YAML::Node& map, std::string_view key) {
  if (!map.IsMap()) return std::nullopt;
  for (const auto& pair : map) {
    if (pair.first.IsScalar() && pair.first.Scalar() == key) {
      return KeyValue{pair.first, pair.second};
    }
  }
  return std::nullopt;
}

// Formats where a node was written (its mark) for error messages.
using Locator = std::function<std::string(const YAML::Mark&)>;

// Bounds on what a config may be: far above any real experiment, far below what would hang
// or exhaust memory. Aliases share nodes, so a 1 KB file of nested aliases ("billion laughs")
// expands to billions of values when walked: the walk counts every value it meets. An alias
// inside its own anchor ("x: &a [*a]") makes a cycle, and a chain of aliases nests deeper than
// the parser allows: the walk bounds its depth (as yaml-cpp bounds the parser's) to stay on
// the stack.
constexpr std::uint64_t kMaxConfigBytes = 1 << 20;
constexpr std::size_t kMaxConfigValues = 100'000;
constexpr std::size_t kMaxConfigDepth = 2000;
constexpr double kMaxConfigNumber = 1e9;

// ConfigVisitor::learning_rate's keys, and rl-zoo's prefix of a linearly decaying rate.
constexpr std::string_view kRateKey = "learning_rate";
constexpr std::string_view kScheduleKey = "lr_schedule";
constexpr std::string_view kLinearPrefix = "lin_";

// Walks a parsed tree, aliases expanded, and throws unless every mapping key is a name given
// at most once per mapping (yaml-cpp silently keeps duplicates), the tree holds at most
// kMaxConfigValues values and nests at most kMaxConfigDepth levels, and no value contains
// itself.
class KeyCheck {
 public:
  explicit KeyCheck(Locator where) : where_(std::move(where)) {}

  void check(const YAML::Node& node, const std::string& path) {
    if (budget_-- == 0) {
      throw ConfigError(where_(node.Mark()) + ": the config expands to more than " +
                        std::to_string(kMaxConfigValues) + " values (through YAML aliases?)");
    }
    if (!node.IsSequence() && !node.IsMap()) return;
    if (open_.size() == kMaxConfigDepth) throw too_deep(node, path);
    open_.push_back({node, path.size()});
    if (node.IsSequence()) {
      for (std::size_t i = 0; i < node.size(); ++i) {
        check(node[i], path + "[" + std::to_string(i) + "]");
      }
    } else {
      check_map(node, path);
    }
    open_.pop_back();
  }

 private:
  // A sequence or mapping being walked, and the length of its path (a prefix of the paths
  // below it).
  struct Open {
    YAML::Node node;
    std::size_t path_size;
  };

  void check_map(const YAML::Node& node, const std::string& path) {
    std::map<std::string, YAML::Mark> seen;
    for (const auto& pair : node) {
      const YAML::Node& key = pair.first;
      if (!key.IsScalar()) {
        throw ConfigError(where_(key.Mark()) + ": expected a key name, got " + describe_node(key));
      }
      const std::string key_path = child_path(path, key.Scalar());
      const auto [first, inserted] = seen.emplace(key.Scalar(), key.Mark());
      if (!inserted) {
        const std::string here = where_(key.Mark());
        const std::string there = where_(first->second);
        // Both locations are the same --set text when the duplicate came from one.
        const std::string hint = there == here ? "" : " (first defined at " + there + ")";
        throw ConfigError(here + ": duplicate key '" + elided(key_path) + "'" + hint);
      }
      check(pair.second, key_path);
    }
  }

  // At the depth bound: a cycle (`node` is one of the values that contain it), named by the
  // outermost place it starts, or else a chain of aliases too deep.
  ConfigError too_deep(const YAML::Node& node, const std::string& path) const {
    for (const Open& open : open_) {
      if (open.node.is(node)) {
        const std::string start = path.substr(0, open.path_size);
        return ConfigError(where_(node.Mark()) + ": the value of '" +
                           (start.empty() ? std::string("(top level)") : start) +
                           "' contains itself through a YAML alias (an alias inside its own "
                           "anchor)");
      }
    }
    return ConfigError(where_(node.Mark()) + ": the config nests deeper than " +
                       std::to_string(kMaxConfigDepth) + " levels (through YAML aliases?)");
  }

  Locator where_;
  std::size_t budget_ = kMaxConfigValues;
  std::vector<Open> open_;  // outermost first
};

void check_keys(const YAML::Node& node, const std::string& path, const Locator& where) {
  KeyCheck(where).check(node, path);
}

std::string read_file(const std::string& path) {
  try {
    return read_regular_file(path, kMaxConfigBytes, "config file");
  } catch (const FileError& e) {
    throw ConfigError(e.what());
  }
}

// Throws for a control character (other than tab and line breaks) in `text`: YAML forbids
// them, and yaml-cpp's own message for one (a NUL) is misleading.
void check_characters(const std::string& text, const std::string& source_name) {
  int line = 1, column = 1;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t' && c != '\n' && c != '\r') || byte == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", byte);
      throw ConfigError(source_name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                        ": control character " + code + " is not allowed in YAML (is this a "
                        "text file?)");
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}

// The top-level mapping of `text`; an empty document is an empty mapping.
YAML::Node parse_root(const std::string& text, const std::string& source_name) {
  check_characters(text, source_name);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    throw ConfigError(file_location(source_name, e.mark) + ": malformed YAML: nested deeper " +
                      "than " + std::to_string(e.depth() - 1) + " levels");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(file_location(source_name, e.mark) + ": malformed YAML: " + e.msg);
  }
  if (documents.size() > 1) {
    throw ConfigError(file_location(source_name, documents[1].Mark()) +
                      ": expected a single YAML document, found " +
                      std::to_string(documents.size()) + " (separated by '---')");
  }
  if (documents.empty() || documents[0].IsNull()) return YAML::Node(YAML::NodeType::Map);
  if (!documents[0].IsMap()) {
    throw ConfigError(file_location(source_name, documents[0].Mark()) +
                      ": expected a mapping of keys at the top level (like 'seed: 1'), got " +
                      describe_node(documents[0]));
  }
  return documents[0];
}

// ---------------------------------------------------------------------------------------------
// Document: the YAML tree plus where each part of it came from
// ---------------------------------------------------------------------------------------------

class Document {
 public:
  Document(std::string text, std::string source_name)
      : text_(std::move(text)), source_name_(std::move(source_name)),
        root_(parse_root(text_, source_name_)) {
    check_keys(root_, "",
               [this](const YAML::Mark& mark) { return file_location(source_name_, mark); });
  }

  // An independent copy. YAML::Clone would drop the line numbers, so parse and replay instead.
  Document copy() const {
    Document result(text_, source_name_);
    for (const auto& assignment : assignments_) result.set(assignment);
    return result;
  }

  const std::string& source_name() const { return source_name_; }
  const YAML::Node& root() const { return root_; }

  // Applies "a.b.c=value". Checks everything before changing the tree: on error it is unchanged.
  void set(const std::string& assignment) {
    const std::string origin = "--set " + elided(assignment);
    const Assignment parsed = split_assignment(assignment);
    const YAML::Node value = parse_set_value(parsed.value, assignment);
    check_keys(value, parsed.path, [&origin](const YAML::Mark&) { return origin; });

    YAML::Node map = root_;
    std::string parent_path;
    for (std::size_t i = 0; i + 1 < parsed.keys.size(); ++i) {
      parent_path = child_path(parent_path, parsed.keys[i]);
      map.reset(child_mapping(map, parsed.keys[i], parent_path, origin));
    }
    forget_origins_under(parsed.path);
    map[parsed.keys.back()] = value;
    origins_[parsed.path] = origin;
    assignments_.push_back(assignment);
  }

  // Where the node at `path` with position `mark` was written: "--set a.b=1" if a --set put it
  // there, else "file:line:col" (or just the file name if the node has no position).
  std::string location(const std::string& path, const YAML::Mark& mark) const {
    if (const auto origin = set_origin(path)) return *origin;
    return file_location(source_name_, mark);
  }

  // The location of the value at "a.b.c", or the file name if the document does not have it.
  std::string location_of(const std::string& path) const {
    const std::vector<std::string> keys = split(path, '.');
    YAML::Node map = root_;
    for (std::size_t i = 0;; ++i) {
      const auto entry = find_entry(map, keys[i]);
      if (!entry) return source_name_;
      if (i + 1 == keys.size()) return location(path, entry->value_mark());
      map.reset(entry->value);
    }
  }

 private:
  // "ppo.gamma=0.9" taken apart: path "ppo.gamma", keys {"ppo", "gamma"}, value "0.9".
  struct Assignment {
    std::string path;
    std::vector<std::string> keys;
    std::string value;
  };

  // Splits at the first '=' (a value may contain '='); the key path must be dot-separated names.
  static Assignment split_assignment(const std::string& assignment) {
    const auto equals = assignment.find('=');
    const ConfigError malformed("--set '" + elided(assignment) +
                                "': expected key.path=value (for example ppo.gamma=0.99)");
    if (equals == std::string::npos) throw malformed;
    Assignment parsed{assignment.substr(0, equals), {}, assignment.substr(equals + 1)};
    parsed.keys = split(parsed.path, '.');
    if (!std::all_of(parsed.keys.begin(), parsed.keys.end(), is_name)) throw malformed;
    if (parsed.value.find_first_not_of(" \t") == std::string::npos) {
      throw ConfigError("--set '" + elided(assignment) + "': expected a value after '='");
    }
    return parsed;
  }

  // One YAML value: a second document ("1\n---\n2") would otherwise be dropped silently.
  static YAML::Node parse_set_value(const std::string& text, const std::string& assignment) {
    const std::string where = "--set '" + elided(assignment) + "'";
    check_characters(text, where);
    std::vector<YAML::Node> documents;
    try {
      documents = YAML::LoadAll(text);
    } catch (const YAML::ParserException& e) {
      throw ConfigError(where + ": malformed YAML value: " + e.msg);
    }
    if (documents.size() > 1) {
      throw ConfigError(where + ": expected a single YAML value, found " +
                        std::to_string(documents.size()) + " documents (separated by '---')");
    }
    return documents.empty() ? YAML::Node() : documents.front();
  }

  // The mapping under `key` in `map`; a missing or null one is created and attributed to
  // `origin`. Throws if the key holds something else: a --set never replaces a scalar with a
  // section silently.
  YAML::Node child_mapping(YAML::Node& map, const std::string& key, const std::string& path,
                           const std::string& origin) {
    if (const auto child = find_entry(map, key); child && !child->value.IsNull()) {
      if (!child->value.IsMap()) {
        throw ConfigError(origin + ": cannot set a key inside '" + path + "': it is " +
                          describe_node(child->value) + " (at " +
                          location(path, child->value_mark()) + "), not a mapping");
      }
      return child->value;
    }
    map[key] = YAML::Node(YAML::NodeType::Map);
    origins_[path] = origin;
    return map[key];
  }

  // The --set that wrote `path` or the closest enclosing key ("a.b[2]" -> "a.b" -> "a").
  std::optional<std::string> set_origin(std::string path) const {
    while (true) {
      if (const auto it = origins_.find(path); it != origins_.end()) return it->second;
      const auto cut = path.find_last_of(".[");
      if (cut == std::string::npos) return std::nullopt;
      path.resize(cut);
    }
  }

  // Drops the origins of `path` and everything below it (a new value replaces them).
  void forget_origins_under(const std::string& path) {
    for (auto it = origins_.begin(); it != origins_.end();) {
      const std::string& key = it->first;
      const bool below = key.compare(0, path.size(), path) == 0 &&
                         (key.size() == path.size() || key[path.size()] == '.' ||
                          key[path.size()] == '[');
      it = below ? origins_.erase(it) : std::next(it);
    }
  }

  std::string text_;         // kept with assignments_ to rebuild an independent copy
  std::string source_name_;
  YAML::Node root_;          // always a mapping
  std::vector<std::string> assignments_;           // every set(), in order
  std::map<std::string, std::string> origins_;     // key path -> "--set ..." that wrote it
};

// ---------------------------------------------------------------------------------------------
// Reader: fills Options from a Document
// ---------------------------------------------------------------------------------------------

class Reader final : public ConfigVisitor {
 public:
  explicit Reader(const Document& doc) : doc_(doc) {
    levels_.push_back({"", doc.root(), {}});
  }

  // Checks the top level once the root visit is done (sections check themselves on leaving).
  // Every unknown key is reported at once, in the order of the document (--set ones last).
  void finish() {
    check_unknown_keys(levels_.back());
    if (unknown_keys_.empty()) return;
    std::stable_sort(
        unknown_keys_.begin(), unknown_keys_.end(), [](const UnknownKey& a, const UnknownKey& b) {
          return std::tie(a.from_set, a.line, a.column) < std::tie(b.from_set, b.line, b.column);
        });
    std::string message;
    for (const UnknownKey& unknown : unknown_keys_) {
      message += (message.empty() ? "" : "\n") + unknown.message;
    }
    throw ConfigError(message);
  }

  void field(std::string_view key, bool& value, std::string_view) override {
    const auto entry = take(key);
    if (!entry) return;
    const auto parsed =
        entry->node.IsScalar() ? parse_bool(entry->node.Scalar()) : std::nullopt;
    if (!parsed) throw type_error(*entry, "true or false");
    value = *parsed;
  }

  void field(std::string_view key, int& value, std::string_view, const Limits& limits) override {
    if (const auto entry = take(key)) {
      value = static_cast<int>(read_integer(*entry, std::numeric_limits<int>::min(),
                                            std::numeric_limits<int>::max(), limits));
    }
  }

  void field(std::string_view key, std::int64_t& value, std::string_view,
             const Limits& limits) override {
    if (const auto entry = take(key)) {
      value = read_integer(*entry, std::numeric_limits<std::int64_t>::min(),
                           std::numeric_limits<std::int64_t>::max(), limits);
    }
  }

  void field(std::string_view key, double& value, std::string_view,
             const Limits& limits) override {
    if (const auto entry = take(key)) value = read_number(*entry, limits);
  }

  void field(std::string_view key, std::optional<double>& value, std::string_view,
             const Limits& limits) override {
    const auto entry = take(key);
    if (!entry) return;
    value = entry->node.IsNull() ? std::nullopt : std::optional(read_number(*entry, limits));
  }

  void field(std::string_view key, std::string& value, std::string_view,
             const Limits& limits) override {
    const auto entry = take(key);
    if (!entry) return;
    if (entry->node.IsNull()) throw type_error(*entry, "a string (write '' for an empty one)");
    if (!entry->node.IsScalar()) throw type_error(*entry, "a string");
    const std::string& text = entry->node.Scalar();
    if (!limits.allows(text)) {
      throw error(*entry, entry->path + " = '" + elided(text) + "' is not " + limits.describe() +
                              did_you_mean(text, limits.choices));
    }
    value = text;
  }

  void field(std::string_view key, std::vector<std::int64_t>& value, std::string_view,
             const Limits& limits) override {
    const auto entry = take(key);
    if (!entry) return;
    if (!entry->node.IsSequence()) {
      const std::string hint = entry->node.IsScalar() ? " (write [x] for a single value)" : "";
      throw type_error(*entry, "a sequence of integers like [64, 64]" + hint);
    }
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < entry->node.size(); ++i) {
      const YAML::Node node = entry->node[i];
      const Entry element{entry->path + "[" + std::to_string(i) + "]", node, node.Mark()};
      values.push_back(read_integer(element, std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::max(), limits));
    }
    value = std::move(values);
  }

  void learning_rate(double& rate, std::string& schedule, std::string_view help,
                     const Limits& limits) override {
    const auto rate_entry = take(kRateKey);
    const bool linear = rate_entry && rate_entry->node.IsScalar() &&
                        rate_entry->node.Scalar().rfind(kLinearPrefix, 0) == 0;
    if (rate_entry) {
      rate = linear ? read_linear_rate(*rate_entry, limits) : read_number(*rate_entry, limits);
    }
    const bool schedule_given = has_key(kScheduleKey);
    field(kScheduleKey, schedule, "learning-rate schedule", one_of(kLearningRateSchedules));
    if (!linear) return;
    if (schedule_given && schedule != "linear") {
      throw error(*rate_entry, rate_entry->path + " = '" + elided(rate_entry->node.Scalar()) +
                                   "' asks for the linear schedule but " +
                                   child_path(levels_.back().path, kScheduleKey) + " is '" +
                                   schedule + "': write a plain number or drop lr_schedule");
    }
    schedule = "linear";
  }

  void field(std::string_view key, Kwargs& value, std::string_view) override {
    const auto entry = take(key);
    if (!entry) return;
    Kwargs kwargs(entry->path, doc_.location(entry->path, entry->mark));
    if (entry->node.IsNull()) {
      value = std::move(kwargs);
      return;
    }
    if (!entry->node.IsMap()) throw type_error(*entry, "a mapping of keyword arguments");
    for (const auto& pair : entry->node) {
      const std::string name = pair.first.Scalar();  // check_keys made every key a scalar
      const KeyValue item{pair.first, pair.second};
      const Entry element{child_path(entry->path, name), item.value, item.value_mark()};
      const std::string where = doc_.location(element.path, element.mark);
      if (element.node.IsScalar()) {
        kwargs.set(name, element.node.Scalar(), where);
        continue;
      }
      std::vector<std::string> texts;
      if (element.node.IsSequence()) {
        for (const auto& item_node : element.node) {
          if (!item_node.IsScalar()) break;
          texts.push_back(item_node.Scalar());
        }
      }
      if (!element.node.IsSequence() || texts.size() != element.node.size()) {
        throw type_error(element, "a scalar or a sequence of scalars");
      }
      kwargs.set_list(name, std::move(texts), where);
    }
    value = std::move(kwargs);
  }

 protected:
  void enter_section(std::string_view key, std::string_view) override {
    const auto entry = take(key);
    std::optional<YAML::Node> map;
    // A null section ("ppo:" with every key commented out) keeps the defaults like a missing one.
    if (entry && !entry->node.IsNull()) {
      if (!entry->node.IsMap()) throw type_error(*entry, "a section of keys (a mapping)");
      map.emplace(entry->node);
    }
    levels_.push_back({child_path(levels_.back().path, key), map, {}});
  }

  void leave_section() override {
    check_unknown_keys(levels_.back());
    levels_.pop_back();
  }

  std::optional<std::size_t> enter_list(std::string_view key, std::string_view) override {
    const auto entry = take(key);
    const std::string path = child_path(levels_.back().path, key);
    if (!entry) {
      lists_.push_back({path, std::nullopt});
      return std::nullopt;
    }
    if (entry->node.IsNull()) {
      lists_.push_back({path, std::nullopt});
      return 0;
    }
    if (!entry->node.IsSequence()) {
      throw type_error(*entry, "a sequence (write [] for an empty one)");
    }
    lists_.push_back({path, entry->node});
    return entry->node.size();
  }

  void enter_item(std::size_t index, std::string_view shorthand_key) override {
    const List& list = lists_.back();
    const std::string path = list.path + "[" + std::to_string(index) + "]";
    if (!list.node) {
      levels_.push_back({path, std::nullopt, {}});
      return;
    }
    const YAML::Node item = (*list.node)[index];
    const Entry entry{path, item, item.Mark()};
    if (item.IsScalar()) {
      // The shorthand "- name" reads as {shorthand_key: name}; errors point at the scalar.
      YAML::Node map(YAML::NodeType::Map);
      map[std::string(shorthand_key)] = item.Scalar();
      levels_.push_back({path, map, {}, item.Mark()});
      return;
    }
    if (!item.IsMap()) {
      throw type_error(entry, "a mapping of keys or a name (" + std::string(shorthand_key) + ")");
    }
    levels_.push_back({path, item, {}});
  }

  void leave_list() override { lists_.pop_back(); }

 private:
  // One mapping being read: the document's node (absent if the document lacks the section),
  // the keys the Options struct declared so far, and where to point for values that have no
  // position of their own (those of a shorthand list item).
  struct Level {
    std::string path;
    std::optional<YAML::Node> map;
    std::vector<std::string> fields;
    YAML::Mark fallback_mark = YAML::Mark::null_mark();
  };

  // A sequence being read (absent if the document lacks it).
  struct List {
    std::string path;
    std::optional<YAML::Node> node;
  };

  // A value found in the document, with its full key path ("ppo.gamma", "net.sizes[1]") and
  // where to point at it.
  struct Entry {
    std::string path;
    YAML::Node node;
    YAML::Mark mark;
  };

  // Declares `key` in the current level and returns its value if the document has one.
  std::optional<Entry> take(std::string_view key) {
    Level& level = levels_.back();
    level.fields.emplace_back(key);
    if (!level.map) return std::nullopt;
    const auto found = find_entry(*level.map, key);
    if (!found) return std::nullopt;
    const YAML::Mark mark = found->value_mark();
    return Entry{child_path(level.path, key), found->value,
                 mark.is_null() ? level.fallback_mark : mark};
  }

  // True if the current level of the document has `key`.
  bool has_key(std::string_view key) const {
    const Level& level = levels_.back();
    return level.map && find_entry(*level.map, key);
  }

  // A key in the document that the Options struct does not declare, and where it is.
  struct UnknownKey {
    bool from_set;
    int line, column;
    std::string message;
  };

  void check_unknown_keys(const Level& level) {
    if (!level.map) return;
    for (const auto& pair : *level.map) {
      const std::string& key = pair.first.Scalar();  // check_keys made every key a scalar
      if (std::find(level.fields.begin(), level.fields.end(), key) != level.fields.end()) {
        continue;
      }
      const std::string path = child_path(level.path, key);
      std::string hint = did_you_mean(key, level.fields);
      if (hint.empty()) {
        hint = level.path.empty() ? "; top-level keys are: " + join(level.fields)
                                  : "; keys in '" + level.path + "' are: " + join(level.fields);
      }
      const YAML::Mark mark = pair.first.Mark();
      const std::string location = doc_.location(path, mark);
      unknown_keys_.push_back({location != file_location(doc_.source_name(), mark), mark.line,
                               mark.column,
                               location + ": unknown key '" + elided(path) + "'" + hint});
    }
  }

  double read_number(const Entry& entry, const Limits& limits) const {
    const auto value = entry.node.IsScalar() ? parse_number(entry.node.Scalar()) : std::nullopt;
    if (!value) throw type_error(entry, "a number");
    return checked_number(entry, *value, limits);
  }

  // rl-zoo's "lin_<number>" (`entry` starts with kLinearPrefix): the number.
  double read_linear_rate(const Entry& entry, const Limits& limits) const {
    const std::string& text = entry.node.Scalar();
    const auto value = parse_number(std::string_view(text).substr(kLinearPrefix.size()));
    if (!value) {
      throw error(entry, entry.path + " = '" + elided(text) +
                             "' is malformed: expected a number or " +
                             "lin_<number> (a linear schedule from that number, like lin_7.3e-4)");
    }
    return checked_number(entry, *value, limits);
  }

  // A number parsed from `entry`, if finite, not too large and within `limits`.
  double checked_number(const Entry& entry, double value, const Limits& limits) const {
    if (std::isnan(value)) throw type_error(entry, "a number (NaN is never allowed)");
    // Far beyond any real setting, far below float's range: a 1e38 learning rate or a 1e308
    // clip range would overflow float arithmetic in LibTorch mid-run.
    if (std::isinf(value) || std::abs(value) > kMaxConfigNumber) {
      throw error(entry, entry.path + " = " + elided(entry.node.Scalar()) +
                             " is out of range: a number in a config must be finite and at "
                             "most 1e9 in magnitude");
    }
    check_range(entry, value, limits);
    return value;
  }

  // An integer in [min, max]; a float that is a whole number ("1e5", "100000.0") counts.
  std::int64_t read_integer(const Entry& entry, std::int64_t min, std::int64_t max,
                            const Limits& limits) const {
    const std::string text = entry.node.IsScalar() ? entry.node.Scalar() : "";
    std::optional<std::int64_t> value = parse_integer(text);
    if (!value) {
      const auto number = parse_number(text);
      if (!number || !std::isfinite(*number) || std::trunc(*number) != *number) {
        throw type_error(entry, "an integer");
      }
      // 2^63 is the first double above the int64 range.
      if (*number >= 0x1p63 || *number < -0x1p63) throw integer_range_error(entry, min, max);
      value = static_cast<std::int64_t>(*number);
    }
    if (*value < min || *value > max) throw integer_range_error(entry, min, max);
    check_range(entry, static_cast<double>(*value), limits);
    return *value;
  }

  void check_range(const Entry& entry, double value, const Limits& limits) const {
    if (!limits.allows(value)) {
      throw error(entry, entry.path + " = " + elided(entry.node.Scalar()) +
                             " is out of range: must be " + limits.describe());
    }
  }

  ConfigError integer_range_error(const Entry& entry, std::int64_t min, std::int64_t max) const {
    return error(entry, entry.path + " = " + elided(entry.node.Scalar()) +
                            " does not fit in the integer type: must be in [" +
                            std::to_string(min) + ", " + std::to_string(max) + "]");
  }

  ConfigError type_error(const Entry& entry, const std::string& expected) const {
    return error(entry, entry.path + ": expected " + expected + ", got " +
                            describe_node(entry.node));
  }

  ConfigError error(const Entry& entry, const std::string& message) const {
    return ConfigError(doc_.location(entry.path, entry.mark) + ": " + message);
  }

  const Document& doc_;
  std::vector<Level> levels_;  // the root, then one per open section or list item
  std::vector<List> lists_;    // the lists being read, innermost last
  std::vector<UnknownKey> unknown_keys_;  // found so far, thrown together by finish()
};

// ---------------------------------------------------------------------------------------------
// Writer: prints Options as YAML
// ---------------------------------------------------------------------------------------------

class Writer final : public ConfigVisitor {
 public:
  explicit Writer(YAML::Emitter& out) : out_(out) {}

  void field(std::string_view key, bool& value, std::string_view) override {
    write_key(key) << value;
  }
  void field(std::string_view key, int& value, std::string_view, const Limits&) override {
    write_key(key) << value;
  }
  void field(std::string_view key, std::int64_t& value, std::string_view,
             const Limits&) override {
    write_key(key) << value;
  }
  void field(std::string_view key, double& value, std::string_view, const Limits&) override {
    write_double(write_key(key), value);
  }
  void field(std::string_view key, std::optional<double>& value, std::string_view,
             const Limits&) override {
    if (value) {
      write_double(write_key(key), *value);
    } else {
      write_key(key) << YAML::Null;
    }
  }
  void field(std::string_view key, std::string& value, std::string_view,
             const Limits&) override {
    write_key(key);
    // Quote "true", "1e-3", "null"... so that they read back as strings everywhere.
    if (reads_as_non_string(value)) out_ << YAML::DoubleQuoted;
    out_ << value;
  }
  void field(std::string_view key, std::vector<std::int64_t>& value, std::string_view,
             const Limits&) override {
    write_key(key) << YAML::Flow << YAML::BeginSeq;
    for (const auto element : value) out_ << element;
    out_ << YAML::EndSeq;
  }

  void field(std::string_view key, Kwargs& value, std::string_view) override {
    write_key(key) << YAML::BeginMap;
    for (const std::string& name : value.keys()) {
      out_ << YAML::Key << name << YAML::Value;
      const auto& texts = value.texts(name);
      if (!value.is_list(name)) {
        out_ << texts.front();
        continue;
      }
      out_ << YAML::Flow << YAML::BeginSeq;
      for (const auto& text : texts) out_ << text;
      out_ << YAML::EndSeq;
    }
    out_ << YAML::EndMap;
  }

 protected:
  void enter_section(std::string_view key, std::string_view) override {
    write_key(key) << YAML::BeginMap;
  }
  void leave_section() override { out_ << YAML::EndMap; }
  std::optional<std::size_t> enter_list(std::string_view key, std::string_view) override {
    write_key(key) << YAML::BeginSeq;
    return std::nullopt;
  }
  void enter_item(std::size_t, std::string_view) override { out_ << YAML::BeginMap; }
  void leave_list() override { out_ << YAML::EndSeq; }

 private:
  YAML::Emitter& write_key(std::string_view key) {
    return out_ << YAML::Key << std::string(key) << YAML::Value;
  }

  static void write_double(YAML::Emitter& out, double value) { out << yaml_float(value); }

  YAML::Emitter& out_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// ConfigVisitor
// ---------------------------------------------------------------------------------------------

// Writers and key listers see the two keys as they are; the Reader also takes "lin_".
void ConfigVisitor::learning_rate(double& rate, std::string& schedule, std::string_view help,
                                  const Limits& limits) {
  field(kRateKey, rate, help, limits);
  field(kScheduleKey, schedule,
        "learning-rate schedule: linear decays to 0 at the end of training (learning_rate: "
        "lin_<number> is that number with linear)",
        one_of(kLearningRateSchedules));
}

// ---------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------

bool Limits::allows(double value) const {
  if (std::isnan(value)) return false;
  const bool above_min = min_exclusive ? value > min : value >= min;
  const bool below_max = max_exclusive ? value < max : value <= max;
  return above_min && below_max;
}

bool Limits::allows(const std::string& value) const {
  return choices.empty() || std::find(choices.begin(), choices.end(), value) != choices.end();
}

std::string Limits::describe() const {
  if (!choices.empty()) return "one of: " + join(choices);
  const bool has_min = min != -std::numeric_limits<double>::infinity();
  const bool has_max = max != std::numeric_limits<double>::infinity();
  if (has_min && has_max) {
    return std::string("in ") + (min_exclusive ? "(" : "[") + format_number(min) + ", " +
           format_number(max) + (max_exclusive ? ")" : "]");
  }
  if (has_min) return (min_exclusive ? "> " : ">= ") + format_number(min);
  if (has_max) return (max_exclusive ? "< " : "<= ") + format_number(max);
  return "any number";
}

Limits at_least(double min) {
  Limits limits;
  limits.min = min;
  return limits;
}

Limits greater_than(double min) {
  Limits limits;
  limits.min = min;
  limits.min_exclusive = true;
  return limits;
}

Limits between(double min, double max) {
  Limits limits;
  limits.min = min;
  limits.max = max;
  return limits;
}

Limits one_of(std::vector<std::string> choices) {
  Limits limits;
  limits.choices = std::move(choices);
  return limits;
}

// ---------------------------------------------------------------------------------------------
// ConfigDocument
// ---------------------------------------------------------------------------------------------

struct ConfigDocument::Impl {
  Document doc;
};

ConfigDocument::ConfigDocument(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

ConfigDocument ConfigDocument::parse_file(const std::string& path) {
  return parse_string(read_file(path), path);
}

ConfigDocument ConfigDocument::parse_string(const std::string& text,
                                            const std::string& source_name) {
  return ConfigDocument(std::make_shared<Impl>(Impl{Document(text, source_name)}));
}

void ConfigDocument::set(const std::string& assignment) {
  // Copies of a ConfigDocument share one tree; give this one its own before changing it.
  if (impl_.use_count() > 1) impl_ = std::make_shared<Impl>(Impl{impl_->doc.copy()});
  impl_->doc.set(assignment);
}

void ConfigDocument::read(const VisitFunction& visit_root) const {
  Reader reader(impl_->doc);
  visit_root(reader);
  reader.finish();
}

ConfigError ConfigDocument::error_at(const std::string& key_path,
                                     const std::string& message) const {
  return ConfigError(impl_->doc.location_of(key_path) + ": " + message);
}

const std::string& ConfigDocument::source_name() const { return impl_->doc.source_name(); }

std::string to_yaml(const VisitFunction& visit_root) {
  YAML::Emitter out;
  out.SetNullFormat(YAML::LowerNull);
  out << YAML::BeginMap;
  Writer writer(out);
  visit_root(writer);
  out << YAML::EndMap;
  if (!out.good()) throw ConfigError("cannot write the config as YAML: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

}  // namespace mnrl::core
