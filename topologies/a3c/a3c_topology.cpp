#include "topologies/a3c/a3c_topology.h"

#include <string>
#include <vector>

#include "agents/a3c/a3c_workers.h"
#include "distributed/communicator.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/topology_registry.h"
#include "nn/tensor_state.h"
#include "topologies/a3c/parameter_server.h"
#include "topologies/a3c/parameter_shards.h"
#include "topologies/a3c/worker_threads.h"

namespace mnrl::topologies {
namespace {

using experiments::Checkpoint;
using experiments::ExperimentOptions;

const agents::A3cOptions& a3c_options(const ExperimentOptions& options) {
  return options.hyperparameters<agents::A3cOptions>();
}

// The workers of a checkpoint with their shared model, restored, and a player of that model.
class A3cPolicy final : public experiments::RestoredPolicy {
 public:
  A3cPolicy(const Checkpoint& checkpoint, const ExperimentOptions& options, envs::VectorEnv& envs) {
    const agents::AgentSetup setup = experiments::agent_setup(options, envs.spec());
    shared_ = make_a3c_shared_model(options, envs.spec());
    // The agents of the workers that learned into it (threads), or none (a parameter server),
    // or the one that played it (best).
    for (std::size_t k = 0; k < experiments::saved_agent_count(checkpoint); ++k) {
      workers_.push_back(agents::make_a3c_worker(a3c_options(options), setup, shared_));
    }
    experiments::TrainingParts parts;
    for (auto& worker : workers_) parts.agents.push_back(worker.get());
    parts.envs = {&envs};
    parts.shared = shared_model_state(*shared_);
    experiments::restore_policy(checkpoint, parts);
    player_ = agents::make_a3c_player(a3c_options(options), setup, *shared_);
  }

  agents::Agent& player() override { return *player_; }

 private:
  std::shared_ptr<agents::SharedModel> shared_;
  std::vector<std::unique_ptr<agents::Agent>> workers_;
  std::unique_ptr<agents::Agent> player_;
};

// Asynchronous workers around one shared model: threads in one process (WorkerThreads), or
// parameter servers on the first distributed.parameter_servers ranks (ParameterServer on rank
// 0, run_shard_server on the others) and a worker on every other rank.
class A3cWorkersKind final : public experiments::TopologyKind {
 public:
  void check_ranks(const ExperimentOptions& options,
                   const distributed::Communicator& world) const override {
    const int servers = options.distributed.parameter_servers;
    if (servers == 1 || world.size() > servers) return;
    throw distributed::CommunicatorError(
        "distributed.parameter_servers: " + std::to_string(servers) +
        " servers and a worker at least take " + std::to_string(servers + 1) +
        " ranks (mpirun -np " + std::to_string(servers + 1) + " or more), not " +
        std::to_string(world.size()));
  }
  experiments::RankRoles rank_roles(const ExperimentOptions& options) const override {
    return {options.distributed.parameter_servers, "parameter server", "worker"};
  }
  std::unique_ptr<experiments::TrainingTopology> make(
      const ExperimentOptions& options, experiments::MetricsSink& metrics,
      distributed::Communicator* communicator) const override {
    if (!communicator || communicator->size() == 1) {
      return std::make_unique<WorkerThreads>(options, metrics);
    }
    if (communicator->rank() > 0) return nullptr;
    return std::make_unique<ParameterServer>(options, metrics, *communicator);
  }
  std::int64_t run_rank(const ExperimentOptions& options, distributed::Communicator& communicator,
                        const Checkpoint* resume_from) const override {
    std::optional<std::int64_t> resumed_at;
    if (resume_from) resumed_at = resume_from->info().step;
    if (communicator.rank() < options.distributed.parameter_servers) {
      return run_shard_server(options, communicator, resumed_at);
    }
    return run_parameter_server_worker(options, communicator, resumed_at);
  }
  std::unique_ptr<experiments::RestoredPolicy> restore_policy(
      const Checkpoint& checkpoint, const ExperimentOptions& options,
      envs::VectorEnv& envs) const override {
    return std::make_unique<A3cPolicy>(checkpoint, options, envs);
  }
};

}  // namespace

MNRL_REGISTER_TOPOLOGY("a3c_workers", A3cWorkersKind);

std::shared_ptr<agents::SharedModel> make_a3c_shared_model(const ExperimentOptions& options,
                                                           const envs::EnvSpec& spec) {
  experiments::seed_initial_weights(options.seed);
  return agents::make_a3c_shared_model(a3c_options(options),
                                       experiments::agent_setup(options, spec));
}

experiments::SharedState shared_model_state(agents::SharedModel& model) {
  experiments::SharedState state;
  state.save = [&model](core::StateWriter& out) {
    nn::save_tensor(out, model.parameters);
    nn::save_tensor(out, model.square_avg);
  };
  state.load = [&model](core::StateReader& in) {
    nn::load_tensor(in, model.parameters);
    nn::load_tensor(in, model.square_avg);
  };
  // One agent per worker thread, none from a parameter server (its workers are ranks).
  state.describe_agents = [](std::uint64_t agents) {
    return agents == 0 ? std::string("a parameter server (mpirun)")
                       : std::to_string(agents) + " worker thread(s) (a3c.workers)";
  };
  return state;
}

SnapshotPlayer::SnapshotPlayer(const ExperimentOptions& options, const envs::EnvSpec& spec)
    : options_(options), spec_(spec) {}

SnapshotPlayer::~SnapshotPlayer() = default;

agents::Agent& SnapshotPlayer::play(agents::SharedModel& model) {
  snapshot_ = agents::snapshot_of(model);
  player_ = agents::make_a3c_worker(a3c_options(options_),
                                    experiments::agent_setup(options_, spec_), snapshot_);
  return *player_;
}

experiments::TrainingParts SnapshotPlayer::policy(envs::VectorEnv& envs) const {
  experiments::TrainingParts policy;
  policy.agents = {player_.get()};
  policy.envs = {&envs};
  policy.shared = shared_model_state(*snapshot_);
  return policy;
}

}  // namespace mnrl::topologies
