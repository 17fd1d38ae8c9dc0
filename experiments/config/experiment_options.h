#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agents/network_options.h"
#include "agents/registry.h"
#include "core/config.h"
#include "distributed/backend_registry.h"
#include "envs/env_options.h"

namespace mnrl::experiments {

// The `train:` section: budget, evaluation and logging schedule, compute.
struct TrainOptions {
  std::int64_t total_steps = 100000;  // env steps, summed over the vector env
  std::int64_t eval_interval = 0;     // env steps between evaluations; 0 = only at the end
  int eval_episodes = 10;             // episodes per evaluation (greedy actions)
  std::int64_t log_interval = 0;      // steps between log lines when stdout is not a
                                      // terminal; 0 = a tenth of total_steps
  // Stop once an evaluation's mean return reaches it (SB3's StopTrainingOnRewardThreshold).
  std::optional<double> stop_at_return;
  int threads = 1;                    // threads of the hand-written passes (at most 2 used)
  // cpu | cuda | cuda:N | auto (experiments/training/train_device.h). cpu by default: for the
  // small MLPs of classic control the hand-written CPU passes beat a GPU (docs/BENCHMARKS.md).
  std::string device = "cpu";
  // On a GPU: auto | on | off. Whether gradient steps run as CUDA graphs (agents/agent_setup.h).
  std::string cuda_graphs = "auto";
  // On a GPU: fp32 | tf32 | bf16 (nn/precision.h).
  std::string precision = "fp32";

  void visit(core::ConfigVisitor& v) {
    v.field("total_steps", total_steps, "env steps to train for", core::at_least(1));
    v.field("eval_interval", eval_interval, "steps between evaluations; 0 = at the end only",
            core::at_least(0));
    // One env per episode: bounded as env.num_envs is.
    v.field("eval_episodes", eval_episodes, "episodes per evaluation", core::between(1, 100000));
    v.field("log_interval", log_interval, "steps between non-terminal log lines; 0 = total/10",
            core::at_least(0));
    v.field("stop_at_return", stop_at_return,
            "stop once an evaluation (every eval_interval steps) has at least this mean return; "
            "null = train for total_steps");
    v.field("threads", threads, "learner threads per process (at most 2 and one per CPU are used)",
            core::between(1, 1024));
    v.field("device", device,
            "where the networks train: cpu, cuda (each rank the GPU of its local rank), cuda:N, "
            "or auto (cuda where a GPU and a CUDA LibTorch are there, for every algorithm but "
            "a3c and gSDE, for impala and apex_dqn their learners, whose actors act on the "
            "CPU)");
    v.field("cuda_graphs", cuda_graphs,
            "on a GPU, each gradient step replayed as one CUDA graph instead of hundreds of "
            "launches (every algorithm that trains on a GPU, without data-parallel ranks or "
            "several learners): auto (where they can; else "
            "eagerly, saying why once), on (an error where they cannot), off",
            core::one_of({"auto", "on", "off"}));
    v.field("precision", precision,
            "on a GPU, how the networks compute: fp32, tf32 (float32 matmuls and convolutions on "
            "TensorFloat-32 tensor cores) or bf16 (matmuls and convolutions in bfloat16, on GPUs "
            "of compute "
            "capability 8.0 and above); weights, gradients and optimizer state stay float32",
            core::one_of({"fp32", "tf32", "bf16"}));
  }
};

// The `checkpoint:` section (experiments/checkpoints/checkpoint.h). A checkpoint is also written at the
// end and when Ctrl-C / SIGTERM stops a run.
struct CheckpointOptions {
  std::int64_t interval = 0;  // env steps between checkpoints; 0 = only at the end / on a stop
  int keep = 3;               // newest checkpoints kept; older ones are deleted
  bool replay_buffer = true;  // off-policy agents: include the replay buffer
  bool save_best = true;      // keep checkpoints/best, the policy of the best evaluation

  void visit(core::ConfigVisitor& v) {
    v.field("interval", interval, "steps between checkpoints; 0 = at the end and on a stop only",
            core::at_least(0));
    v.field("keep", keep, "newest checkpoints kept", core::at_least(1));
    v.field("replay_buffer", replay_buffer, "off-policy agents: save the replay buffer too");
    v.field("save_best", save_best,
            "keep checkpoints/best: the policy whose evaluation (train.eval_interval and the "
            "final one) had the highest mean return; one learner (ppo, a2c, dqn), not a3c");
  }
};

// The `logging:` section: where metrics go besides metrics.csv and the console.
struct LoggingOptions {
  bool tensorboard = true;  // TensorBoard event file in the run directory

  void visit(core::ConfigVisitor& v) {
    v.field("tensorboard", tensorboard, "write a TensorBoard event file next to metrics.csv");
  }
};

// The `distributed:` section: how the ranks of `mpirun -np N mnrl train` work together
// (docs/distributed.md). A single process ignores it.
struct DistributedOptions {
  std::string backend = "auto";        // auto, or a registered backend (distributed/)
  double bucket_mb = 25.0;             // gradient MiB per all-reduce call
  std::int64_t sync_check_interval = 100;  // updates between replica checks; 0 = never
  std::string lr_scaling = "none";     // none | linear (learning rate x number of ranks)
  double timeout = 300.0;              // seconds a rank waits for the others before the job ends
  int learners = 1;                    // IMPALA, Ape-X: ranks that learn; the others act
  int parameter_servers = 1;           // A3C under mpirun: ranks holding a shard each
  // PPO, A2C: the network cut into stages across the ranks (distributed/pipeline/).
  int pipeline_stages = 1;
  int micro_batches = 1;
  std::string pipeline_schedule = "gpipe";  // gpipe | 1f1b
  bool recompute_activations = false;
  std::vector<std::int64_t> stage_boundaries;  // first block of stages 1..K-1; empty: balanced

  void visit(core::ConfigVisitor& v) {
    v.field("backend", backend,
            "communicator: auto (mpi under mpirun, nccl or hierarchical for GPU gradients, else "
            "local), or a backend by name",
            core::one_of(distributed::backend_names_with_auto()));
    v.field("bucket_mb", bucket_mb, "gradient MiB per all-reduce call", core::greater_than(0.0));
    v.field("sync_check_interval", sync_check_interval,
            "updates between checks that every rank holds the same parameters; 0 = never",
            core::at_least(0));
    v.field("lr_scaling", lr_scaling,
            "learning rate with N ranks: none (as written) or linear (times N)",
            core::one_of({"none", "linear"}));
    v.field("timeout", timeout,
            "seconds a rank waits for the others in one exchange before the job ends (a rank "
            "stopped, hung or stuck in an env step); a warning names them at half of it",
            core::between(1, 86400));
    v.field("learners", learners,
            "IMPALA and Ape-X under mpirun: ranks that learn, averaging their gradients (the "
            "first ones); every other rank acts for one of them",
            core::between(1, 1 << 16));
    v.field("parameter_servers", parameter_servers,
            "A3C under mpirun: ranks the parameters and RMSprop's statistics are sharded over "
            "(the first ones), each serving its shard to every worker on its own",
            core::between(1, 1 << 16));
    v.field("pipeline_stages", pipeline_stages,
            "PPO, A2C and DQN under mpirun: ranks the network is cut across, one stage each "
            "(mpirun -np a multiple: pipelines side by side, each one's first rank stepping the "
            "envs and acting with a whole copy); 1 = not cut",
            core::between(1, 1024));
    v.field("micro_batches", micro_batches,
            "pipeline stages: micro-batches each minibatch is split into on its way through",
            core::between(1, 1 << 20));
    v.field("pipeline_schedule", pipeline_schedule,
            "pipeline stages: gpipe (every forward, then every backward, one update per "
            "minibatch: as uncut) or 1f1b (PipeDream: one forward one backward, an update per "
            "micro-batch with the weights its forward used)",
            core::one_of({"gpipe", "1f1b"}));
    v.field("recompute_activations", recompute_activations,
            "pipeline stages: keep only each stage's inputs and recompute its activations in the "
            "backward pass (less memory, one more forward)");
    v.field("stage_boundaries", stage_boundaries,
            "pipeline stages: the first block (encoder, trunk layers, heads, from 0) of stages "
            "1..K-1; empty = cut where the stages' parameter counts balance",
            core::between(1, 1 << 20));
  }
};

// What an experiment trains: an algorithm on an env, as a checkpoint records it. A checkpoint
// restores only into an experiment of the same subject.
struct RunSubject {
  std::string algo;
  std::string env;  // the env id
};

struct ExperimentOptions {
  std::string name = "experiment";  // run directory prefix
  std::int64_t seed = 1;            // derives every RNG (torch, envs, evaluation)
  std::string algo = "ppo";         // a name in agents::AgentRegistry
  envs::EnvOptions env;
  agents::NetworkOptions network;
  agents::AlgorithmSections algorithms;  // every registered algorithm's section
  TrainOptions train;
  CheckpointOptions checkpoint;
  LoggingOptions logging;
  DistributedOptions distributed;
  // Not a key: about how many bytes the networks with their gradients and Adam's moments take,
  // as validation estimated them from the env's spec (0 where not validated). A GPU must hold
  // at least this much (check_device_options).
  double network_bytes = 0.0;

  RunSubject subject() const { return {algo, env.id}; }
  // The chosen algorithm, and its section.
  const agents::Algorithm& algorithm() const { return agents::AgentRegistry::global().at(algo); }
  const agents::AlgorithmSection& algorithm_section() const { return algorithms.at(algo); }
  // The section of the algorithm whose Options type is `Options` (agents::PpoOptions, ...).
  template <class Options>
  Options& hyperparameters() {
    return algorithms.get<Options>();
  }
  template <class Options>
  const Options& hyperparameters() const {
    return algorithms.get<Options>();
  }

  void visit(core::ConfigVisitor& v) {
    v.field("name", name, "experiment name, prefix of the run directory");
    v.field("seed", seed, "experiment seed", core::at_least(0));
    v.field("algo", algo, "algorithm", core::one_of(agents::AgentRegistry::global().names()));
    v.section("env", env, "environment");
    v.section("network", network, "actor-critic network");
    algorithms.visit(v);
    v.section("train", train, "training schedule");
    v.section("checkpoint", checkpoint, "checkpoint schedule");
    v.section("logging", logging, "metric outputs");
    v.section("distributed", distributed, "multi-process training (mpirun)");
  }
};

// Reads a config file with --set overrides ("key.path=value", applied in order), loads
// env.plugin, and checks what spans several keys (a registered env id and kwargs it takes,
// batch sizes that fit the rollout).
// Throws core::ConfigError naming the key and where it was set.
ExperimentOptions load_experiment(const std::string& path,
                                  const std::vector<std::string>& overrides);

// load_experiment on YAML text held in memory (for programs that embed mnrl); `source_name`
// stands for the file name in messages.
ExperimentOptions parse_experiment(const std::string& yaml, const std::string& source_name,
                                   const std::vector<std::string>& overrides = {});

// The resolved config as YAML (every key, as the run trains with it): a run directory's
// config.yaml, from which the run resumes.
std::string resolved_config_yaml(const ExperimentOptions& options);

// Whether the chosen algorithm's section asks for gSDE exploration (its use_sde).
bool uses_sde(const ExperimentOptions& options);

// The checks of load_experiment on options read from `document`; returns the estimate of
// ExperimentOptions::network_bytes.
double validate_experiment(const ExperimentOptions& options, const core::ConfigDocument& document);

}  // namespace mnrl::experiments
