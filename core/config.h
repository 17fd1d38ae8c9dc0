#pragma once

// Experiment configuration: YAML files read into typed Options structs.
//
// An Options struct lists its fields once, in a `visit` member; the same list reads the YAML,
// writes the resolved config and documents the keys, so YAML keys always equal field names:
//
//   struct PpoOptions {
//     int64_t n_steps = 2048;  // rollout length per env
//     double gamma = 0.99;     // discount factor
//     void visit(core::ConfigVisitor& v) {
//       v.field("n_steps", n_steps, "rollout length per env", core::at_least(1));
//       v.field("gamma", gamma, "discount factor", core::between(0, 1));
//     }
//   };
//
// Every problem a user can cause (malformed YAML, unknown key, wrong type, value out of range,
// bad --set) is a ConfigError whose message names the key path and where it came from
// ("configs/x.yaml:12:10" or "--set ppo.gamma=2").

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mnrl::core {

class Kwargs;

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The values a field accepts: a numeric interval and/or a list of allowed strings.
// Bounds are inclusive unless marked exclusive. A number field never takes .inf or .nan
// (an infinite learning rate passes any lower bound and ruins a run); env kwargs may.
struct Limits {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  bool max_exclusive = false;
  std::vector<std::string> choices;  // for string fields; empty = any string

  bool allows(double value) const;
  bool allows(const std::string& value) const;
  std::string describe() const;  // "in [0, 1]", "> 0", "one of: constant, linear"
};

Limits at_least(double min);        // [min, +inf]
Limits greater_than(double min);    // (min, +inf]
Limits between(double min, double max);  // [min, max]
Limits one_of(std::vector<std::string> choices);

// The values of every lr_schedule key (see ConfigVisitor::learning_rate): "linear" goes from
// learning_rate to 0 over training (agents/schedule.h).
inline const std::vector<std::string> kLearningRateSchedules{"constant", "linear"};

// Walks the fields of an Options struct. Readers fill them, writers print them.
class ConfigVisitor {
 public:
  virtual ~ConfigVisitor() = default;

  virtual void field(std::string_view key, bool& value, std::string_view help) = 0;
  virtual void field(std::string_view key, int& value, std::string_view help,
                     const Limits& limits = {}) = 0;
  virtual void field(std::string_view key, std::int64_t& value, std::string_view help,
                     const Limits& limits = {}) = 0;
  virtual void field(std::string_view key, double& value, std::string_view help,
                     const Limits& limits = {}) = 0;
  // An optional number: YAML null (or ~) leaves it empty.
  virtual void field(std::string_view key, std::optional<double>& value, std::string_view help,
                     const Limits& limits = {}) = 0;
  virtual void field(std::string_view key, std::string& value, std::string_view help,
                     const Limits& limits = {}) = 0;
  virtual void field(std::string_view key, std::vector<std::int64_t>& value,
                     std::string_view help, const Limits& limits = {}) = 0;
  // A free mapping of scalars or sequences of scalars, typed later by whoever reads it (an
  // env's kwargs); null means empty. Values keep their text and where they were written.
  virtual void field(std::string_view key, Kwargs& value, std::string_view help) = 0;

  // A learning rate under "learning_rate" (a number in `limits`, or rl-zoo's "lin_<number>":
  // that number with the linear schedule) and its schedule under "lr_schedule" (one of
  // kLearningRateSchedules). "lin_" beside an lr_schedule other than linear is an error.
  virtual void learning_rate(double& rate, std::string& schedule, std::string_view help,
                             const Limits& limits);

  // A nested mapping read by `options.visit(*this)`.
  template <class Options>
  void section(std::string_view key, Options& options, std::string_view help) {
    enter_section(key, help);
    options.visit(*this);
    leave_section();
  }

  // A sequence of mappings, each filled by `item.visit(*this)` from a default Item; key paths
  // read "env.wrappers[1].num_frames". A scalar element `x` reads as {shorthand_key: x}, so an
  // item that needs only a name can be written bare ("- clip_action"). A document that has the
  // key replaces the whole list; null means an empty list.
  template <class Item>
  void list(std::string_view key, std::vector<Item>& items, std::string_view help,
            std::string_view shorthand_key) {
    if (const auto count = enter_list(key, help)) items.assign(*count, Item{});
    for (std::size_t i = 0; i < items.size(); ++i) {
      enter_item(i, shorthand_key);
      items[i].visit(*this);
      leave_section();
    }
    leave_list();
  }

 protected:
  virtual void enter_section(std::string_view key, std::string_view help) = 0;
  virtual void leave_section() = 0;
  // Returns the number of items the document holds when the visitor reads a list from it.
  virtual std::optional<std::size_t> enter_list(std::string_view key, std::string_view help) = 0;
  // Enters item `index` of the current list like a section; left with leave_section().
  virtual void enter_item(std::size_t index, std::string_view shorthand_key) = 0;
  virtual void leave_list() = 0;
};

using VisitFunction = std::function<void(ConfigVisitor&)>;

// A parsed YAML config plus any --set overrides, ready to be read into Options structs.
// Copies are independent: set() on one copy does not change the others.
//
// Types: a bool takes true/false (also yes/no, on/off); an integer also takes a float that is a
// whole number ("1e5"); a number takes finite integers and floats (see Limits); a string takes
// any scalar; a list of integers takes a sequence ([] included); Kwargs take a mapping whose
// values are scalars or sequences of scalars. A section that is missing or
// null ("ppo:" with every key commented out) keeps its defaults.
class ConfigDocument {
 public:
  // Throws ConfigError for a missing/unreadable file or malformed YAML (with line and column).
  static ConfigDocument parse_file(const std::string& path);
  // `source_name` stands for the file name in messages.
  static ConfigDocument parse_string(const std::string& text, const std::string& source_name);

  // Applies "key.path=value" (the argument of --set). The value is parsed as YAML, so
  // "--set network.hidden_sizes=[32,32]" works. Throws ConfigError if malformed. The value
  // replaces whatever the key held (a mapping value replaces the whole section); missing
  // sections on the path are created. Later calls win over earlier ones.
  void set(const std::string& assignment);

  // Fills the root Options from the document. Throws ConfigError on an unknown key (with a
  // "did you mean" suggestion), a wrong type or an out-of-range value, naming the key path and
  // its location. Keys absent from the document keep the Options' defaults.
  void read(const VisitFunction& visit_root) const;
  template <class Options>
  void read_into(Options& options) const {
    read([&](ConfigVisitor& v) { options.visit(v); });
  }

  // A ConfigError for a check made after reading (one that spans several fields), located at
  // `key_path` ("ppo.batch_size") as the reader would locate it: "file:line:col: message",
  // "--set ppo.batch_size=64: message", or "file: message" if the key is absent. The message
  // is used as is, so it should name the key.
  ConfigError error_at(const std::string& key_path, const std::string& message) const;

  // The name of the file (or source) the document came from.
  const std::string& source_name() const;

 private:
  struct Impl;
  explicit ConfigDocument(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

// The resolved config as YAML text: every field with its current value, in visit order.
std::string to_yaml(const VisitFunction& visit_root);

}  // namespace mnrl::core
