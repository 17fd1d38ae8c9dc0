#include "experiments/studies/search_space.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace mnrl::experiments {
namespace {

std::string where(const std::string& path, const YAML::Node& node, const std::string& key) {
  return "search space " + path + " line " + std::to_string(node.Mark().line + 1) + ", " + key;
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

std::string flow_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

Parameter read_parameter(const std::string& path, const std::string& key, const YAML::Node& spec) {
  const std::string at = where(path, spec, key);
  if (!spec.IsMap() || !spec["type"]) {
    throw SearchSpaceError(at + ": give a map with a type (uniform, log_uniform, int, "
                                "categorical), e.g. {type: uniform, low: 0.8, high: 0.99}");
  }
  Parameter p;
  p.key = key;
  p.line = spec.Mark().line + 1;
  const std::string type = spec["type"].as<std::string>();
  std::set<std::string> fields;
  if (type == "uniform" || type == "log_uniform" || type == "int") {
    p.kind = type == "uniform"       ? Parameter::Kind::kUniform
             : type == "log_uniform" ? Parameter::Kind::kLogUniform
                                     : Parameter::Kind::kInt;
    fields = {"type", "low", "high"};
    if (type == "int") fields.insert("log");
    if (!spec["low"] || !spec["high"]) throw SearchSpaceError(at + ": give low and high");
    try {
      p.low = spec["low"].as<double>();
      p.high = spec["high"].as<double>();
      p.log = type == "log_uniform" || (spec["log"] && spec["log"].as<bool>());
    } catch (const YAML::Exception&) {
      throw SearchSpaceError(at + ": low and high must be numbers (and log true or false)");
    }
    if (!std::isfinite(p.low) || !std::isfinite(p.high) || !(p.low < p.high)) {
      throw SearchSpaceError(at + ": the range [" + number_text(p.low) + ", " +
                             number_text(p.high) + "] is empty: low must be below high");
    }
    if (p.kind == Parameter::Kind::kInt &&
        (p.low != std::floor(p.low) || p.high != std::floor(p.high))) {
      throw SearchSpaceError(at + ": an int range needs whole numbers for low and high");
    }
    if (p.log && p.low <= 0) {
      throw SearchSpaceError(at + ": a log range must lie above 0 (low is " +
                             number_text(p.low) + ")");
    }
  } else if (type == "categorical") {
    p.kind = Parameter::Kind::kCategorical;
    fields = {"type", "choices"};
    const YAML::Node choices = spec["choices"];
    if (!choices || !choices.IsSequence()) {
      throw SearchSpaceError(at + ": give the choices as a list, e.g. choices: [256, 512]");
    }
    std::set<std::string> seen;
    for (const YAML::Node& choice : choices) {
      p.choices.push_back(flow_yaml(choice));
      if (!seen.insert(p.choices.back()).second) {
        throw SearchSpaceError(at + ": the choice " + p.choices.back() + " is given twice");
      }
    }
    if (p.choices.size() < 2) {
      throw SearchSpaceError(at + ": a categorical needs at least two choices (" +
                             std::to_string(p.choices.size()) +
                             " given): set a single value in the config instead");
    }
  } else {
    throw SearchSpaceError(at + ": unknown type '" + type +
                           "' (uniform, log_uniform, int or categorical)");
  }
  for (const auto& field : spec) {
    const std::string name = field.first.as<std::string>();
    if (fields.count(name) == 0) {
      throw SearchSpaceError(at + ": unknown field '" + name + "' for type " + type);
    }
  }
  return p;
}

}  // namespace

std::vector<Parameter> read_search_space(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw SearchSpaceError("search space " + path + ": cannot be read");
  } catch (const YAML::Exception& e) {
    throw SearchSpaceError("search space " + path + ": not YAML: " + e.what());
  }
  if (!root.IsMap() || root.size() == 0) {
    throw SearchSpaceError("search space " + path +
                           ": give a map of config keys to ranges, e.g. "
                           "ppo.learning_rate: {type: log_uniform, low: 1.0e-5, high: 1.0e-2}");
  }
  std::vector<Parameter> space;
  std::set<std::string> keys;
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (!keys.insert(key).second) {
      throw SearchSpaceError(where(path, entry.first, key) + ": given twice");
    }
    try {
      space.push_back(read_parameter(path, key, entry.second));
    } catch (const YAML::Exception& e) {
      throw SearchSpaceError(where(path, entry.second, key) + ": " + e.msg);
    }
  }
  return space;
}

ParameterValue value_of(const Parameter& p, double number) {
  switch (p.kind) {
    case Parameter::Kind::kCategorical: {
      const auto index = static_cast<std::size_t>(number);
      return {static_cast<double>(index), p.choices.at(index)};
    }
    case Parameter::Kind::kInt: {
      const double whole = std::min(p.high, std::max(p.low, std::round(number)));
      return {whole, std::to_string(static_cast<std::int64_t>(whole))};
    }
    default: {
      const double value = std::min(p.high, std::max(p.low, number));
      return {value, number_text(value)};
    }
  }
}

ParameterValue draw(const Parameter& p, std::mt19937_64& random) {
  if (p.kind == Parameter::Kind::kCategorical) {
    std::uniform_int_distribution<std::size_t> pick(0, p.choices.size() - 1);
    return value_of(p, static_cast<double>(pick(random)));
  }
  // An int's range widened by half a step each side, so that its ends are as likely as the rest.
  const double half = p.kind == Parameter::Kind::kInt ? 0.5 : 0.0;
  if (p.log) {
    std::uniform_real_distribution<double> u(std::log(p.low - half * 0.999),
                                             std::log(p.high + half));
    return value_of(p, std::exp(u(random)));
  }
  std::uniform_real_distribution<double> u(p.low - half, p.high + half);
  return value_of(p, u(random));
}

std::vector<std::pair<const Parameter*, std::string>> extreme_overrides(
    const std::vector<Parameter>& space) {
  std::vector<std::pair<const Parameter*, std::string>> overrides;
  for (const Parameter& p : space) {
    if (p.kind == Parameter::Kind::kCategorical) {
      for (const std::string& choice : p.choices) overrides.emplace_back(&p, p.key + "=" + choice);
    } else {
      overrides.emplace_back(&p, p.key + "=" + value_of(p, p.low).text);
      overrides.emplace_back(&p, p.key + "=" + value_of(p, p.high).text);
    }
  }
  return overrides;
}

}  // namespace mnrl::experiments
