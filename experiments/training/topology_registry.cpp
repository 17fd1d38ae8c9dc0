#include "experiments/training/topology_registry.h"

#include <stdexcept>

#include "core/text.h"
#include "experiments/checkpoints/training_checkpoint.h"
#include "experiments/training/agent_factory.h"

namespace mnrl::experiments {
namespace {

class OneAgentPolicy final : public RestoredPolicy {
 public:
  explicit OneAgentPolicy(std::unique_ptr<agents::Agent> agent) : agent_(std::move(agent)) {}
  agents::Agent& player() override { return *agent_; }

 private:
  std::unique_ptr<agents::Agent> agent_;
};

}  // namespace

std::int64_t TopologyKind::run_rank(const ExperimentOptions& options, distributed::Communicator&,
                                    const Checkpoint*) const {
  throw std::logic_error("topology '" + options.algorithm().topology() +
                         "' made no topology for a rank but runs none of its own");
}

std::unique_ptr<RestoredPolicy> TopologyKind::restore_policy(const Checkpoint& checkpoint,
                                                             const ExperimentOptions& options,
                                                             envs::VectorEnv& envs) const {
  auto agent = make_agent(options, envs.spec());
  TrainingParts parts;
  parts.agents = {agent.get()};
  parts.envs = {&envs};
  experiments::restore_policy(checkpoint, parts);
  return std::make_unique<OneAgentPolicy>(std::move(agent));
}

TopologyRegistry& TopologyRegistry::global() {
  static TopologyRegistry registry;
  return registry;
}

void TopologyRegistry::add(const std::string& name, std::shared_ptr<const TopologyKind> kind) {
  if (name.empty() || !kind) throw std::invalid_argument("a topology needs a name and a kind");
  if (!kinds_.emplace(name, std::move(kind)).second) {
    throw std::invalid_argument("topology '" + name + "' is already registered");
  }
}

bool TopologyRegistry::contains(const std::string& name) const { return kinds_.count(name) != 0; }

const TopologyKind& TopologyRegistry::at(const std::string& name) const {
  const auto found = kinds_.find(name);
  if (found == kinds_.end()) {
    throw std::invalid_argument("unknown topology '" + name + "'" +
                                core::did_you_mean(name, names()) +
                                "; registered: " + core::join(names()));
  }
  return *found->second;
}

std::vector<std::string> TopologyRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& [name, kind] : kinds_) names.push_back(name);
  return names;
}

const TopologyKind& topology_kind(const agents::Algorithm& algorithm) {
  return TopologyRegistry::global().at(algorithm.topology());
}

std::string topology_name(const ExperimentOptions& options) {
  return options.distributed.pipeline_stages > 1 ? "pipeline" : options.algorithm().topology();
}

const TopologyKind& topology_kind(const ExperimentOptions& options) {
  return TopologyRegistry::global().at(topology_name(options));
}

}  // namespace mnrl::experiments
