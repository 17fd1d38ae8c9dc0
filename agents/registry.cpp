#include "agents/registry.h"

#include "core/text.h"

namespace mnrl::agents {

AgentRegistry& AgentRegistry::global() {
  static AgentRegistry registry;
  return registry;
}

void AgentRegistry::add(const std::string& name, std::shared_ptr<const Algorithm> algorithm) {
  if (name.empty() || !algorithm) {
    throw std::invalid_argument("an algorithm needs a name and a definition");
  }
  if (!algorithms_.emplace(name, std::move(algorithm)).second) {
    throw std::invalid_argument("algorithm '" + name + "' is already registered");
  }
}

bool AgentRegistry::contains(const std::string& name) const {
  return algorithms_.count(name) != 0;
}

const Algorithm& AgentRegistry::at(const std::string& name) const {
  const auto found = algorithms_.find(name);
  if (found == algorithms_.end()) {
    throw std::invalid_argument("unknown algorithm '" + name + "'" +
                                core::did_you_mean(name, names()) +
                                "; registered: " + core::join(names()));
  }
  return *found->second;
}

std::vector<std::string> AgentRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& [name, algorithm] : algorithms_) names.push_back(name);
  return names;
}

AlgorithmSections::AlgorithmSections() {
  const AgentRegistry& registry = AgentRegistry::global();
  for (const auto& name : registry.names()) {
    sections_.emplace(name, registry.at(name).default_section());
  }
}

AlgorithmSections::AlgorithmSections(const AlgorithmSections& other) {
  for (const auto& [name, section] : other.sections_) sections_.emplace(name, section->clone());
}

AlgorithmSections& AlgorithmSections::operator=(const AlgorithmSections& other) {
  if (this != &other) *this = AlgorithmSections(other);
  return *this;
}

void AlgorithmSections::visit(core::ConfigVisitor& v) {
  const AgentRegistry& registry = AgentRegistry::global();
  for (auto& [name, section] : sections_) {
    v.section(name, *section, registry.at(name).summary());
  }
}

AlgorithmSection& AlgorithmSections::at(const std::string& name) {
  const auto found = sections_.find(name);
  if (found != sections_.end()) return *found->second;
  AgentRegistry::global().at(name);  // throws for an unknown algorithm
  throw std::logic_error("algorithm '" + name + "' was registered after these options were made");
}

const AlgorithmSection& AlgorithmSections::at(const std::string& name) const {
  return const_cast<AlgorithmSections*>(this)->at(name);
}

}  // namespace mnrl::agents
