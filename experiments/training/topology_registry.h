#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "envs/vector_env.h"
#include "experiments/checkpoints/checkpoint.h"
#include "experiments/config/experiment_options.h"
#include "experiments/metrics/metrics.h"
#include "experiments/training/topology.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

// What a rank of a job of several does, for the run's first line: `leading` ranks (from rank
// 0) with `leading_role`, the others with `other_role`; no leading ranks where every rank does
// the same (replicas); or pipelines of `pipeline_stages` consecutive ranks whose first acts.
struct RankRoles {
  int leading = 0;
  std::string leading_role, other_role;  // singular: "learner", "actor"
  int pipeline_stages = 0;
};

// A checkpoint's policy restored for playing (`mnrl eval`, `mnrl export`), with whatever it
// needs kept alive.
class RestoredPolicy {
 public:
  virtual ~RestoredPolicy() = default;
  virtual agents::Agent& player() = 0;
};

// How an algorithm's agents are arranged in training over the processes of a job: what each
// rank runs and what its checkpoints hold. An algorithm names its kind (agents::Algorithm::
// topology()); kinds register by that name with MNRL_REGISTER_TOPOLOGY, next to the code that
// runs them: "replicas" here, A3C's, IMPALA's and Ape-X's under topologies/, a program's own
// wherever it is built.
class TopologyKind {
 public:
  virtual ~TopologyKind() = default;

  // Whether distributed.learners may be above 1 (actors feeding several learners).
  virtual bool has_learners() const { return false; }
  // Throws distributed::CommunicatorError where `world` cannot host it; the same on every
  // rank, before anything is written.
  virtual void check_ranks(const ExperimentOptions& /*options*/,
                           const distributed::Communicator& /*world*/) const {}
  virtual RankRoles rank_roles(const ExperimentOptions& /*options*/) const { return {}; }

  // This process' topology (every rank of a job calls it): null on the ranks that run
  // run_rank() instead.
  virtual std::unique_ptr<TrainingTopology> make(const ExperimentOptions& options,
                                                 MetricsSink& metrics,
                                                 distributed::Communicator* communicator) const = 0;
  // What a rank with no topology runs until its leader stops it; returns the global step the
  // leader last reported. `resume_from`: the checkpoint the leader resumes from, or null.
  virtual std::int64_t run_rank(const ExperimentOptions& options,
                                distributed::Communicator& communicator,
                                const Checkpoint* resume_from) const;

  // The policy `checkpoint` holds, restored into agents made for `envs` (whose state it also
  // restores: their observation statistics). By default the one agent make_agent() makes.
  virtual std::unique_ptr<RestoredPolicy> restore_policy(const Checkpoint& checkpoint,
                                                         const ExperimentOptions& options,
                                                         envs::VectorEnv& envs) const;
};

// Topology kinds by name. Not thread-safe: register before reading configs.
class TopologyRegistry {
 public:
  static TopologyRegistry& global();

  // Throws std::invalid_argument if `name` is taken.
  void add(const std::string& name, std::shared_ptr<const TopologyKind> kind);
  bool contains(const std::string& name) const;
  // Throws std::invalid_argument naming the registered kinds.
  const TopologyKind& at(const std::string& name) const;
  std::vector<std::string> names() const;  // sorted

 private:
  std::map<std::string, std::shared_ptr<const TopologyKind>> kinds_;
};

// The kind `algorithm` names.
const TopologyKind& topology_kind(const agents::Algorithm& algorithm);
// The kind a run of `options` trains as: "pipeline" where distributed.pipeline_stages cuts the
// network across ranks (topologies/pipeline/), else the algorithm's.
std::string topology_name(const ExperimentOptions& options);
const TopologyKind& topology_kind(const ExperimentOptions& options);

}  // namespace mnrl::experiments

// MNRL_REGISTER_TOPOLOGY("replicas", ReplicasKind): registers a default-constructed
// TopologyKind subclass into the global registry at static initialization.
#define MNRL_REGISTER_TOPOLOGY_CONCAT2(a, b) a##b
#define MNRL_REGISTER_TOPOLOGY_CONCAT(a, b) MNRL_REGISTER_TOPOLOGY_CONCAT2(a, b)
#define MNRL_REGISTER_TOPOLOGY(name, Type)                                                       \
  static const bool MNRL_REGISTER_TOPOLOGY_CONCAT(mnrl_registered_topology_, __COUNTER__) = [] { \
    ::mnrl::experiments::TopologyRegistry::global().add(name, std::make_shared<const Type>());   \
    return true;                                                                                 \
  }()
