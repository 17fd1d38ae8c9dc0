// Data-parallel training under mpirun: every rank runs every test, and the ranks meet in the
// training loop's collectives. Rank 0 writes the checkpoints, holding every rank's state, and
// checks them. As one process (no mpirun) the same tests run a job of one rank.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "core/openblas.h"
#include "core/state_stream.h"
#include "distributed/byte_exchange.h"
#include "envs/env_options.h"
#include "envs/normalize_observation.h"
#include "envs/vector_env.h"
#include "experiments/checkpoints/checkpoint.h"
#include "experiments/checkpoints/training_checkpoint.h"
#include "experiments/config/experiment_options.h"
#include "experiments/evaluation/checkpoint_evaluation.h"
#include "experiments/runs/training_run.h"
#include "experiments/training/actor_learner_links.h"
#include "experiments/training/training.h"
#include "test_communicator.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;

distributed::Communicator& communicator() { return distributed::test_communicator(); }

// The same new, empty directory on every rank (rank 0 names and makes it).
fs::path shared_directory(const std::string& name) {
  const std::string mine =
      (fs::temp_directory_path() / ("mnrl_dp_" + std::to_string(::getpid()) + "_" + name)).string();
  const fs::path directory = distributed::all_gather_bytes(communicator(), mine).front();
  if (communicator().rank() == 0) {
    fs::remove_all(directory);
    fs::create_directories(directory);
  }
  communicator().barrier();
  return directory;
}

std::string rank_file(const std::string& name, int rank) {
  return rank == 0 ? name : "rank" + std::to_string(rank) + "." + name;
}

// The flat parameters at the start of a checkpoint's agent.state (`algo_tag`: the agent's).
std::vector<float> parameters_in(const Checkpoint& checkpoint, const std::string& file,
                                 const char* algo_tag) {
  const std::string bytes = checkpoint.read(file);
  core::StateReader in(bytes, file);
  in.expect_tag("agents");
  EXPECT_EQ(in.value<std::uint64_t>(), 1u);
  in.expect_tag(algo_tag);
  core::StateReader peek = in;
  std::vector<float> parameters(peek.value<std::uint64_t>());
  in.values(parameters);
  return parameters;
}

// The best eval/mean_return in a run's metrics.csv (0 without one).
double best_evaluation(const fs::path& run_dir) {
  std::ifstream csv(run_dir / "metrics.csv");
  double best = 0.0;
  const std::string key = ",eval/mean_return,";
  for (std::string line; std::getline(csv, line);) {
    const auto at = line.find(key);
    if (at != std::string::npos) best = std::max(best, std::stod(line.substr(at + key.size())));
  }
  return best;
}

class DataParallelTest : public ::testing::Test {
 protected:
  void TearDown() override {
    communicator().barrier();
    if (communicator().rank() == 0 && !dir_.empty()) fs::remove_all(dir_);
    std::fclose(quiet_);
  }

  // Every rank: trains `config` into dir_/whole for 6000 steps with evaluations and
  // checkpoints every 2000, copies it to dir_/resumed without its later checkpoints and resumes
  // it to the end. Rank 0 checks the budget, the checkpoints and the best policy, and that the
  // resumed run's last and best checkpoints evaluate in one process.
  static inline const std::vector<std::string> kCheckpointedRun{
      "train.total_steps=6000", "train.eval_interval=2000", "train.eval_episodes=2",
      "checkpoint.interval=2000"};
  void run_checkpointed_resume_and_evaluate(const std::string& config,
                                            const std::vector<std::string>& overrides = {}) {
    std::vector<std::string> all = kCheckpointedRun;
    all.insert(all.end(), overrides.begin(), overrides.end());
    const auto whole = train(config, all, "whole");
    const bool leader = communicator().rank() == 0;
    if (leader) {
      EXPECT_GE(whole.training.steps, 6000);
      EXPECT_FALSE(whole.training.interrupted);
      ASSERT_TRUE(whole.training.best.has_value());
      EXPECT_EQ(whole.training.best->checkpoint, best_checkpoint_path(dir_ / "whole"));
      const auto checkpoints = list_checkpoints(dir_ / "whole");
      ASSERT_EQ(checkpoints.size(), 3u);  // at 2000+, 4000+ and the end
      EXPECT_GE(Checkpoint::open(checkpoints.front()).info().step, 2000);
      fs::copy(dir_ / "whole", dir_ / "resumed", fs::copy_options::recursive);
      for (std::size_t i = 1; i < checkpoints.size(); ++i) {
        fs::remove_all(dir_ / "resumed" / "checkpoints" / checkpoints[i].filename());
      }
    }
    communicator().barrier();
    TrainingRunSettings settings;
    settings.console = quiet_;
    const auto resumed = resume_training(dir_ / "resumed", settings, [](const std::string&) {});
    if (!leader) return;
    EXPECT_GE(resumed.training.steps, 6000);
    EXPECT_EQ(list_checkpoints(dir_ / "resumed").size(), 3u);
    for (const fs::path& target : {dir_ / "resumed", best_checkpoint_path(dir_ / "resumed")}) {
      const auto evaluation = evaluate_checkpoint(target, 2, 7, false, [](const std::string&) {});
      EXPECT_EQ(evaluation.result.episodes, 2) << target;
    }
  }

  // Every rank: trains `config` with `overrides` (for `total_steps`) into dir_/whole,
  // copies it to dir_/resumed without its checkpoints after the first (a mid-rollout one) and
  // resumes that to the end. Rank 0 checks that the last checkpoints of both hold the same
  // bytes for the agents and envs of ranks 0 .. saved_ranks - 1.
  void expect_resuming_gives_the_same_run(const std::string& config,
                                          const std::vector<std::string>& overrides,
                                          std::int64_t total_steps, int saved_ranks,
                                          const std::string& label) {
    train(config, overrides, "whole");
    if (communicator().rank() == 0) {
      fs::copy(dir_ / "whole", dir_ / "resumed", fs::copy_options::recursive);
      const auto checkpoints = list_checkpoints(dir_ / "resumed");
      EXPECT_GE(checkpoints.size(), 3u) << label;
      for (std::size_t i = 1; i < checkpoints.size(); ++i) fs::remove_all(checkpoints[i]);
    }
    communicator().barrier();
    TrainingRunSettings settings;
    settings.console = quiet_;
    const auto resumed = resume_training(dir_ / "resumed", settings, [](const std::string&) {});
    EXPECT_EQ(resumed.training.steps, total_steps) << label;
    if (communicator().rank() != 0) return;
    const Checkpoint whole = Checkpoint::open(list_checkpoints(dir_ / "whole").back());
    const Checkpoint again = Checkpoint::open(list_checkpoints(dir_ / "resumed").back());
    for (int rank = 0; rank < saved_ranks; ++rank) {
      for (const char* file : {"agent.state", "envs.state"}) {
        // (Not EXPECT_EQ: a difference would print both states' bytes.)
        EXPECT_TRUE(whole.read(rank_file(file, rank)) == again.read(rank_file(file, rank)))
            << label << ": " << rank_file(file, rank) << " differs";
      }
    }
  }

  TrainingRunResult train(const std::string& config, std::vector<std::string> overrides,
                          const std::string& run) {
    overrides.push_back("checkpoint.keep=100");
    const ExperimentOptions options =
        load_experiment(MNRL_SOURCE_DIR "/configs/" + config, overrides);
    TrainingRunSettings settings;
    settings.console = quiet_;
    settings.run_dir = (dir_ / run).string();
    return run_training(options, settings);
  }

  // Rank 0: every rank's parameters in the run's last checkpoint are the same bits.
  void expect_replicas_equal(const std::string& run, const char* algo_tag) {
    if (communicator().rank() != 0) return;
    const auto checkpoints = list_checkpoints(dir_ / run);
    ASSERT_FALSE(checkpoints.empty());
    const Checkpoint last = Checkpoint::open(checkpoints.back());
    const std::vector<float> leader = parameters_in(last, "agent.state", algo_tag);
    for (int rank = 1; rank < communicator().size(); ++rank) {
      EXPECT_EQ(parameters_in(last, rank_file("agent.state", rank), algo_tag), leader)
          << "rank " << rank;
      // Each rank stepped envs of its own (seeded apart).
      EXPECT_NE(last.read(rank_file("envs.state", rank)), last.read("envs.state"));
    }
    EXPECT_FALSE(last.has(rank_file("agent.state", communicator().size())));
  }

  // Rank 0: every checkpoint of `run` holds the state of each actor rank (from `learners` on),
  // as that actor finds it on resuming, under mpirun, and none in one process.
  void expect_actor_states(const std::string& run, int learners = 1) {
    if (communicator().rank() != 0) return;
    const int ranks = communicator().size();
    for (const fs::path& directory : list_checkpoints(dir_ / run)) {
      const Checkpoint checkpoint = Checkpoint::open(directory);
      for (int actor = learners; actor < ranks; ++actor) {
        EXPECT_TRUE(saved_actor_state(checkpoint, actor, learners, ranks - learners))
            << directory << ", rank " << actor;
      }
      EXPECT_FALSE(checkpoint.has(rank_file("actor.state", std::max(ranks, learners))))
          << directory;
    }
  }

  // Every rank: trains `config` (run `label`1) and, if no evaluation reached 475, once more
  // (`label`2; `seeded`: with the attempt's number as the seed, else the same config again,
  // which the machine's scheduling makes another sample). Rank 0 prints each attempt and
  // returns the best evaluation of the last one; the other ranks return 0.
  double best_of_two_attempts(const std::string& config, std::vector<std::string> overrides,
                              const std::string& label, bool seeded) {
    double best = 0.0;
    for (int attempt = 1; attempt <= 2; ++attempt) {
      const std::string run_name = label + std::to_string(attempt);
      std::vector<std::string> these = overrides;
      if (seeded) these.push_back("seed=" + std::to_string(attempt));
      const auto run = train(config, these, run_name);
      bool solved = false;
      if (communicator().rank() == 0) {
        best = best_evaluation(dir_ / run_name);
        const ExperimentOptions options =
            load_experiment(MNRL_SOURCE_DIR "/configs/" + config, these);
        std::printf(
            "[ RESULT   ] %s %s, attempt %d: best evaluation %.2f, final %.2f "
            "at %lld steps (BLAS kernel %s)\n",
            label.c_str(), options.env.id.c_str(), attempt, best,
            run.training.final_evaluation.mean_return, static_cast<long long>(run.training.steps),
            core::openblas_kernel().c_str());
        solved = best >= 475.0;
        // The learners kept the budget: whatever the attempt learned, it took all its steps.
        EXPECT_GE(run.training.steps, options.train.total_steps);
        EXPECT_FALSE(run.training.interrupted);
      }
      // Every rank takes rank 0's decision.
      if (distributed::all_gather_bytes(communicator(), solved ? "1" : "0").front() == "1") break;
    }
    return best;
  }

  fs::path dir_;
  std::FILE* quiet_ = std::fopen("/dev/null", "w");
};

TEST_F(DataParallelTest, PpoReplicasAreBitwiseEqualAfter100Updates) {
  dir_ = shared_directory("ppo");
  const int ranks = communicator().size();
  // 100 updates of 4 steps x 2 envs on each rank, with merged observation statistics and the
  // replica check every 10 updates.
  const auto run =
      train("cartpole_ppo.yaml",
            {"env.num_envs=2", "ppo.n_steps=4", "ppo.batch_size=8", "ppo.n_epochs=2",
             "train.total_steps=" + std::to_string(100 * 4 * 2 * ranks), "train.eval_interval=0",
             "train.eval_episodes=1", "env.wrappers=[{type: normalize_observation}]",
             "distributed.sync_check_interval=10"},
            "ppo");
  EXPECT_EQ(run.training.steps, 100 * 4 * 2 * ranks);
  expect_replicas_equal("ppo", "actor_critic");
}

TEST_F(DataParallelTest, DqnReplicasAreBitwiseEqualThoughTheirBuffersFillUnevenly) {
  dir_ = shared_directory("dqn");
  // 3-step returns add transitions at each rank's own pace (at episode ends); the ranks must
  // still update together.
  train("cartpole_dqn.yaml",
        {"env.num_envs=2", "dqn.n_step=3", "dqn.learning_starts=200", "dqn.batch_size=16",
         "dqn.train_freq=1", "dqn.gradient_steps=1", "dqn.target_update_interval=100",
         "train.total_steps=" + std::to_string(1200 * communicator().size()),
         "train.eval_interval=0", "train.eval_episodes=1", "distributed.sync_check_interval=50"},
        "dqn");
  expect_replicas_equal("dqn", "dqn");
}

// Critics and then actor and log alpha step one after another, each after an all-reduce of
// its own gradient range; each rank draws its own reparameterization noise.
TEST_F(DataParallelTest, SacAndTd3ReplicasAreBitwiseEqual) {
  for (const char* algo : {"sac", "td3"}) {
    dir_ = shared_directory(algo);
    const std::string a = algo;
    train("pendulum_" + a + ".yaml",
          {"env.num_envs=2", a + ".learning_starts=200", a + ".batch_size=16", a + ".n_step=2",
           "network.hidden_sizes=[16,16]",
           "train.total_steps=" + std::to_string(800 * communicator().size()),
           "train.eval_interval=0", "train.eval_episodes=1", "distributed.sync_check_interval=50"},
          algo);
    expect_replicas_equal(algo, algo);
    communicator().barrier();
    if (communicator().rank() == 0) fs::remove_all(dir_);
  }
}

TEST_F(DataParallelTest, ResumingGivesTheSameRunBitForBit) {
  dir_ = shared_directory("resume");
  const int ranks = communicator().size();
  const std::vector<std::string> overrides{"env.num_envs=2",
                                           "ppo.n_steps=8",
                                           "ppo.batch_size=16",
                                           "ppo.n_epochs=2",
                                           "train.total_steps=" + std::to_string(48 * 2 * ranks),
                                           "train.eval_interval=0",
                                           "train.eval_episodes=1",
                                           "checkpoint.interval=" + std::to_string(20 * 2 * ranks)};
  expect_resuming_gives_the_same_run("cartpole_ppo.yaml", overrides, 48 * 2 * ranks, ranks,
                                     "data parallel");
}

// A3C's checkpoints, as worker threads in one process or as a parameter server with its
// worker ranks under mpirun: scheduled checkpoints and the best policy, a resume from the first
// checkpoint that carries on to the budget, and `mnrl eval` of both kinds of checkpoint.
TEST_F(DataParallelTest, A3cCheckpointsResumesAndKeepsTheBestPolicy) {
  dir_ = shared_directory("a3c_checkpoints");
  run_checkpointed_resume_and_evaluate("cartpole_a3c.yaml");
  if (communicator().rank() != 0 || communicator().size() == 1) return;
  // A parameter server's checkpoint does not resume as worker threads: refused, naming both.
  const ExperimentOptions options =
      load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_a3c.yaml", kCheckpointedRun);
  const CheckpointSettings from_server{
      {}, Checkpoint::open(list_checkpoints(dir_ / "resumed").front()), {}};
  NoMetrics metrics;
  try {
    experiments::train(options, metrics, &from_server);
    ADD_FAILURE() << "a parameter server's checkpoint resumed as threads";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("written by a parameter server (mpirun), not 2 worker "
                                         "thread(s) (a3c.workers)"),
              std::string::npos)
        << e.what();
  }
}

// Learning, with the per-rank step budget of the single-process learning test.
TEST_F(DataParallelTest, PpoSolvesCartPoleOnEveryRankCount) {
  dir_ = shared_directory("learn");
  const auto run = train("cartpole_ppo.yaml",
                         {"train.total_steps=" + std::to_string(100000 * communicator().size()),
                          "train.eval_interval=0"},
                         "learn");
  if (communicator().rank() == 0) {
    std::printf("[ RESULT   ] ppo CartPole-v1 at np %d = %.2f (BLAS kernel %s)\n",
                communicator().size(), run.training.final_evaluation.mean_return,
                core::openblas_kernel().c_str());
    EXPECT_GE(run.training.final_evaluation.mean_return, 475.0);
  }
}

// Pipeline stages (distributed.pipeline_stages: a stage of the network on every rank, cut by
// parameter count; 4 micro-batches): a run keeps its budget, checkpoints, resumes, and its
// checkpoints hold the whole model, evaluating in one process. With 4 ranks CartPole's network
// takes a third trunk layer, for 4 blocks to cut (3 layers and the heads).
TEST_F(DataParallelTest, PipelinedPpoCheckpointsResumesAndEvaluates) {
  const int ranks = communicator().size();
  if (ranks < 2) GTEST_SKIP() << "needs 2 or more ranks (a stage each)";
  dir_ = shared_directory("pipeline_checkpoints");
  std::vector<std::string> overrides{"distributed.pipeline_stages=" + std::to_string(ranks),
                                     "distributed.micro_batches=4"};
  if (ranks > 3) overrides.push_back("network.hidden_sizes=[64, 64, 64]");
  run_checkpointed_resume_and_evaluate("cartpole_ppo.yaml", overrides);
}

// A pipelined run stopped at a checkpoint and resumed is the whole run, bit for bit: rank 0's
// checkpoint holds the stages' parameters and their optimizer state (gathered into its agent's),
// which the stages take back at the resume. Under both schedules, and for A2C.
TEST_F(DataParallelTest, PipelinedResumingGivesTheSameRunBitForBit) {
  const int ranks = communicator().size();
  if (ranks < 2) GTEST_SKIP() << "needs 2 or more ranks (a stage each)";
  for (const std::string schedule : {"gpipe", "1f1b"}) {
    dir_ = shared_directory("pipeline_resume_" + schedule);
    std::vector<std::string> overrides{"env.num_envs=2",
                                       "ppo.n_steps=8",
                                       "ppo.batch_size=16",
                                       "ppo.n_epochs=2",
                                       "train.total_steps=96",
                                       "train.eval_interval=0",
                                       "train.eval_episodes=1",
                                       "checkpoint.interval=40",
                                       "distributed.pipeline_stages=" + std::to_string(ranks),
                                       "distributed.micro_batches=2",
                                       "distributed.pipeline_schedule=" + schedule};
    if (ranks > 3) overrides.push_back("network.hidden_sizes=[64, 64, 64]");
    // Rank 0's files hold the whole state.
    expect_resuming_gives_the_same_run("cartpole_ppo.yaml", overrides, 96, 1, schedule);
    communicator().barrier();
    if (communicator().rank() == 0) fs::remove_all(dir_);
  }
  // A2C: its stages step with RMSprop, whose square averages go round the same way.
  dir_ = shared_directory("pipeline_resume_a2c");
  std::vector<std::string> overrides{"env.num_envs=2",
                                     "a2c.n_steps=8",
                                     "train.total_steps=96",
                                     "train.eval_interval=0",
                                     "train.eval_episodes=1",
                                     "checkpoint.interval=40",
                                     "distributed.pipeline_stages=" + std::to_string(ranks),
                                     "distributed.micro_batches=2"};
  if (ranks > 3) overrides.push_back("network.hidden_sizes=[64, 64, 64]");
  expect_resuming_gives_the_same_run("cartpole_a2c.yaml", overrides, 96, 1, "a2c");
}

// The update losses a run reports, in order.
class UpdateLosses final : public MetricsSink {
 public:
  struct Reported {
    std::int64_t step;
    std::string name;
    double value;
  };
  void scalar(std::int64_t step, const std::string& name, double value) override {
    if (name.rfind("losses/", 0) == 0) reported.push_back({step, name, value});
  }
  std::vector<Reported> reported;
};

// Every loss `got` reported is `expected`'s (same steps, same names) within
// 1e-6 + relative * |expected|, but the clip fraction (a count of rows past a threshold, which
// a rounding can flip), in at least `at_least` reports.
void expect_same_losses(const UpdateLosses& got_losses, const UpdateLosses& expected_losses,
                        double relative, std::size_t at_least, const std::string& label) {
  const auto& expected = expected_losses.reported;
  const auto& got = got_losses.reported;
  ASSERT_EQ(got.size(), expected.size()) << label;
  ASSERT_GE(got.size(), at_least) << label;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].step, expected[i].step);
    ASSERT_EQ(got[i].name, expected[i].name);
    if (got[i].name == "losses/clipfrac") continue;
    EXPECT_NEAR(got[i].value, expected[i].value, 1e-6 + relative * std::abs(expected[i].value))
        << label << ": " << got[i].name << " at step " << got[i].step;
  }
}

// Two pipelines of two stages (np 4: ranks 0-1 and 2-3) step as two data-parallel ranks do
// (ranks 0 and 1 of the same job, alone): every pipeline's stage 0 steps the envs its data-
// parallel rank would (the same seeds) and each stage averages its gradients over its two
// replicas before the update, as the data-parallel ranks average theirs. The losses of each
// update are equal to float rounding (the pipeline's stages are LibTorch modules, the
// one-process agent takes its hand-written passes), for PPO (8 updates; the rollouts'
// explained variance is equal at the first update, the policy loss, a mean of terms of about 1
// cancelling out, within 1e-7; the clip fraction is left out: the linear clip-range schedule
// reaches 0 at the last update, where any rounding counts as clipped) and for Rainbow's DQN
// (each pipeline's rank 0 samples its own replay and draws its own noise, as each data-parallel
// rank does).
TEST_F(DataParallelTest, TwoPipelinesStepAsTwoDataParallelRanks) {
  if (communicator().size() != 4) GTEST_SKIP() << "needs 4 ranks (2 pipelines of 2 stages)";
  struct Case {
    std::string config;
    std::vector<std::string> overrides;
    std::size_t at_least;  // losses reported
  };
  const std::vector<Case> cases{
      // 8 updates of 2 ranks x 16 steps x 2 envs, 6 losses each (and the clip fraction).
      {"cartpole_ppo.yaml",
       {"env.num_envs=2", "ppo.n_steps=16", "ppo.batch_size=16", "ppo.n_epochs=2",
        "train.total_steps=512"},
       8 * 6},
      // (300 - 100) / 4 updates of each rank's steps, two losses each.
      {"cartpole_dqn.yaml",
       {"dqn.learning_starts=100", "dqn.batch_size=16", "dqn.train_freq=4", "dqn.gradient_steps=2",
        "dqn.target_update_interval=20", "train.total_steps=600", "dqn.noisy=true",
        "dqn.distributional=c51", "network.dueling=true", "dqn.double_q=true",
        "dqn.prioritized=true"},
       2 * 40},
  };
  for (const Case& c : cases) {
    std::vector<std::string> overrides = c.overrides;
    overrides.insert(overrides.end(), {"train.eval_interval=0", "train.eval_episodes=1"});
    const std::string config = MNRL_SOURCE_DIR "/configs/" + c.config;
    const ExperimentOptions data_parallel = load_experiment(config, overrides);
    overrides.push_back("distributed.pipeline_stages=2");
    overrides.push_back("distributed.micro_batches=4");
    const ExperimentOptions pipelines = load_experiment(config, overrides);
    UpdateLosses replicas_losses, pipelines_losses;
    if (const auto pair = communicator().split(communicator().rank() < 2 ? 0 : -1)) {
      experiments::train(data_parallel, replicas_losses, nullptr, pair.get());
    }
    experiments::train(pipelines, pipelines_losses, nullptr, &communicator());
    if (communicator().rank() != 0) continue;
    expect_same_losses(pipelines_losses, replicas_losses,
                       c.config == "cartpole_ppo.yaml" ? 1e-5 : 1e-4, c.at_least,
                       "2 x 2 stages, " + c.config);
  }
}

// Two pipelines of two stages: a run stopped at a checkpoint and resumed is the whole run, bit
// for bit. Each pipeline's stage 0 saves its agent and envs (as data-parallel ranks do), with
// its stages' parameters and optimizer state.
TEST_F(DataParallelTest, PipelinesSideBySideResumeBitForBit) {
  if (communicator().size() != 4) GTEST_SKIP() << "needs 4 ranks (2 pipelines of 2 stages)";
  dir_ = shared_directory("pipelines_resume");
  const std::vector<std::string> overrides{"env.num_envs=2",
                                           "ppo.n_steps=8",
                                           "ppo.batch_size=16",
                                           "ppo.n_epochs=2",
                                           "train.total_steps=192",
                                           "train.eval_interval=0",
                                           "train.eval_episodes=1",
                                           "checkpoint.interval=80",
                                           "distributed.pipeline_stages=2",
                                           "distributed.micro_batches=2"};
  expect_resuming_gives_the_same_run("cartpole_ppo.yaml", overrides, 192, 2, "2 x 2 stages");
}

// The DQN family's networks cut into stages (2 ranks) step as one process does: the same seed
// samples the same batches, and each update's TD loss and mean Q-value are the one-process
// run's to float rounding (the stages are LibTorch modules through the return distribution's
// host loss, the one-process agent takes its hand-written passes), for DQN with Double DQN,
// 3-step returns and prioritized replay (whose priorities come back from the last stage), for a
// dueling C51, and for Rainbow (noisy nets, whose step noise rank 0 draws and sends the stages).
TEST_F(DataParallelTest, PipelinedDqnStepsAsOneProcess) {
  if (communicator().size() != 2) GTEST_SKIP() << "needs 2 ranks (two stages)";
  const std::vector<std::vector<std::string>> variants{
      {"dqn.double_q=true", "dqn.n_step=3", "dqn.prioritized=true"},
      {"dqn.distributional=c51", "network.dueling=true", "dqn.double_q=true"},
      {"dqn.noisy=true", "dqn.distributional=c51", "network.dueling=true", "dqn.double_q=true",
       "dqn.n_step=3", "dqn.prioritized=true"}};  // Rainbow's
  for (const auto& variant : variants) {
    std::vector<std::string> overrides{"dqn.learning_starts=100",
                                       "dqn.batch_size=16",
                                       "dqn.train_freq=4",
                                       "dqn.gradient_steps=1",
                                       "dqn.target_update_interval=20",
                                       "train.total_steps=300",
                                       "train.eval_interval=0",
                                       "train.eval_episodes=1"};
    overrides.insert(overrides.end(), variant.begin(), variant.end());
    const std::string config = MNRL_SOURCE_DIR "/configs/cartpole_dqn.yaml";
    const ExperimentOptions alone = load_experiment(config, overrides);
    overrides.push_back("distributed.pipeline_stages=2");
    overrides.push_back("distributed.micro_batches=4");
    const ExperimentOptions pipelined = load_experiment(config, overrides);
    UpdateLosses one_process, stages;
    if (communicator().rank() == 0) experiments::train(alone, one_process, nullptr, nullptr);
    experiments::train(pipelined, stages, nullptr, &communicator());
    if (communicator().rank() != 0) continue;
    // (300 - 100) / 4 updates, two losses each.
    expect_same_losses(stages, one_process, 1e-4, 2 * 40, variant.front());
  }
}

// A pipelined DQN run stopped at a checkpoint (its replay saved) and resumed is the whole run,
// bit for bit: the stages take back the online and the target network and Adam's state.
TEST_F(DataParallelTest, PipelinedDqnResumingGivesTheSameRunBitForBit) {
  const int ranks = communicator().size();
  if (ranks < 2) GTEST_SKIP() << "needs 2 or more ranks (a stage each)";
  dir_ = shared_directory("pipeline_resume_dqn");
  std::vector<std::string> overrides{"env.num_envs=2",
                                     "dqn.learning_starts=32",
                                     "dqn.batch_size=16",
                                     "dqn.train_freq=4",
                                     "dqn.gradient_steps=2",
                                     "dqn.target_update_interval=40",
                                     "dqn.double_q=true",
                                     "dqn.prioritized=true",
                                     "dqn.noisy=true",  // its noise sent to the stages
                                     "train.total_steps=240",
                                     "train.eval_interval=0",
                                     "train.eval_episodes=1",
                                     "checkpoint.interval=100",
                                     "checkpoint.replay_buffer=true",
                                     "distributed.pipeline_stages=" + std::to_string(ranks),
                                     "distributed.micro_batches=2"};
  if (ranks > 3) overrides.push_back("network.hidden_sizes=[64, 64, 64]");
  expect_resuming_gives_the_same_run("cartpole_dqn.yaml", overrides, 240, 1, "dqn");
}

// Rank 0: prints what a learning run reached, and where.
void report_learning(const std::string& what, const TrainingRunResult& run) {
  if (communicator().rank() != 0) return;
  std::printf("[ RESULT   ] %s = %.2f at %lld steps (BLAS kernel %s)\n", what.c_str(),
              run.training.final_evaluation.mean_return, static_cast<long long>(run.training.steps),
              core::openblas_kernel().c_str());
}

// A pipelined DQN learns: CartPole within its config's 50k steps (an evaluation >= 475, where
// the run stops), GPipe with 4 micro-batches, on 2 ranks. Seed 3 solves at 30k-40k under the
// Cooperlake, Haswell, Sandybridge, Zen and SkylakeX kernels (seed 1 took 50k under Sandybridge;
// 2 micro-batches, 392 at 50k under Cooperlake: docs/BENCHMARKS.md).
TEST_F(DataParallelTest, PipelinedDqnSolvesCartPole) {
  if (communicator().size() != 2) GTEST_SKIP() << "needs 2 ranks (two stages)";
  dir_ = shared_directory("pipeline_dqn_learning");
  const auto run = train("cartpole_dqn.yaml",
                         {"seed=3", "distributed.pipeline_stages=2", "distributed.micro_batches=4",
                          "train.stop_at_return=475"},
                         "cartpole_dqn");
  report_learning("dqn CartPole-v1, 2 stages, seed 3", run);
  if (communicator().rank() != 0) return;
  EXPECT_GE(run.training.final_evaluation.mean_return, 475.0);
}

// Pipelines learn, on 2 ranks (a stage each): CartPole PPO within the single-process test's
// 100k steps (an evaluation >= 475, where the run stops, as the DQN tests read "within") under
// GPipe (4 micro-batches; seed 1: its arithmetic is the uncut network's, which the pipeline
// tests check).
TEST_F(DataParallelTest, PipelineSolvesCartPoleWithGpipe) {
  if (communicator().size() != 2) GTEST_SKIP() << "needs 2 ranks (two stages)";
  dir_ = shared_directory("pipeline_learning_gpipe");
  const auto run = train("cartpole_ppo.yaml",
                         {"seed=1", "distributed.pipeline_stages=2", "distributed.micro_batches=4",
                          "distributed.pipeline_schedule=gpipe", "train.eval_interval=10000",
                          "train.stop_at_return=475"},
                         "cartpole_gpipe_1");
  report_learning("ppo CartPole-v1 gpipe seed 1", run);
  if (communicator().rank() != 0) return;
  EXPECT_GE(run.training.final_evaluation.mean_return, 475.0);
}

// Under 1F1B (PipeDream's weight stashing, an update per micro-batch), per seed (1-3; seed 2
// under the second BLAS kernel, as the three-seed learning tests run: tests/distributed/
// CMakeLists.txt): CartPole PPO with 2 micro-batches as the GPipe test reads it, and MinAtar
// Breakout PPO with 4 as the single-process test reads it (an evaluation of 30 episodes >= 5
// within 500k steps).
class PipelineSeedTest : public DataParallelTest, public ::testing::WithParamInterface<int> {};

TEST_P(PipelineSeedTest, OneForwardOneBackwardSolvesCartPoleAndLearnsBreakoutWithPpo) {
  if (communicator().size() != 2) GTEST_SKIP() << "needs 2 ranks (two stages)";
  const std::string seed = std::to_string(GetParam());
  dir_ = shared_directory("pipeline_learning_1f1b_" + seed);
  const auto cartpole = train("cartpole_ppo.yaml",
                              {"seed=" + seed, "distributed.pipeline_stages=2",
                               "distributed.micro_batches=2", "distributed.pipeline_schedule=1f1b",
                               "train.eval_interval=10000", "train.stop_at_return=475"},
                              "cartpole_1f1b");
  report_learning("ppo CartPole-v1 1f1b seed " + seed, cartpole);
  const auto breakout =
      train("minatar_breakout_ppo.yaml",
            {"seed=" + seed, "distributed.pipeline_stages=2", "distributed.micro_batches=4",
             "distributed.pipeline_schedule=1f1b", "train.eval_interval=50000",
             "train.eval_episodes=30", "train.stop_at_return=5"},
            "breakout_1f1b");
  report_learning("ppo MinAtar/Breakout-v1 1f1b seed " + seed, breakout);
  if (communicator().rank() != 0) return;
  EXPECT_GE(cartpole.training.final_evaluation.mean_return, 475.0) << "CartPole";
  EXPECT_GE(breakout.training.final_evaluation.mean_return, 5.0) << "Breakout";
}

INSTANTIATE_TEST_SUITE_P(Seeds, PipelineSeedTest, ::testing::Values(1, 2, 3));

// Two pipelines of two stages (np 4) learn CartPole PPO within twice the single-process
// test's 100k steps (the budget counts both pipelines' env steps, as data parallelism's does):
// an evaluation >= 475, where the run stops, under GPipe (4 micro-batches) and 1F1B (2).
TEST_F(DataParallelTest, PipelinesSideBySideSolvesCartPoleWithPpo) {
  if (communicator().size() != 4) GTEST_SKIP() << "needs 4 ranks (2 pipelines of 2 stages)";
  dir_ = shared_directory("pipelines_learning");
  for (const std::string schedule : {"gpipe", "1f1b"}) {
    const auto run =
        train("cartpole_ppo.yaml",
              {"distributed.pipeline_stages=2",
               std::string("distributed.micro_batches=") + (schedule == "gpipe" ? "4" : "2"),
               "distributed.pipeline_schedule=" + schedule, "train.total_steps=200000",
               "train.eval_interval=20000", "train.stop_at_return=475"},
              "cartpole_" + schedule);
    report_learning("ppo CartPole-v1, 2 pipelines x 2 stages, " + schedule, run);
    if (communicator().rank() != 0) continue;
    EXPECT_GE(run.training.final_evaluation.mean_return, 475.0) << schedule;
  }
}

// A3C across processes: rank 0 the parameter server, ranks 1 and 2 the workers, with the
// shipped config's budget (500k steps in all; one process runs it as two worker threads).
// As in the single-process A3C learning test (a2c_learning_test.cpp), the workers interleave
// as the machine schedules them, so a run is one sample of a random outcome: "solved within
// the budget" is an evaluation >= 475 at some point up to 500k steps (every 50k and at the
// end), and a run that falls short gets a second, independent one (seen once in a clean-clone
// CI run: 337 at the end of the run).
// Parameters sharded over two servers (distributed.parameter_servers): the run keeps its
// budget, checkpoints the whole model (gathered from the servers), resumes, keeps its best
// policy, and its checkpoints evaluate in one process.
TEST_F(DataParallelTest, ShardedParameterServersCheckpointResumeAndEvaluate) {
  if (communicator().size() < 3) GTEST_SKIP() << "needs 3 ranks (2 servers, a worker)";
  dir_ = shared_directory("a3c_sharded_checkpoints");
  run_checkpointed_resume_and_evaluate("cartpole_a3c.yaml", {"distributed.parameter_servers=2"});
}

TEST_F(DataParallelTest, ShardedA3cWithTwoWorkersSolvesCartPole) {
  if (communicator().size() != 4) GTEST_SKIP() << "needs 4 ranks (2 servers, 2 workers)";
  dir_ = shared_directory("a3c_sharded");
  const double best = best_of_two_attempts(
      "cartpole_a3c.yaml", {"train.eval_interval=50000", "distributed.parameter_servers=2"},
      "a3c_sharded", false);
  if (communicator().rank() == 0) {
    EXPECT_GE(best, 475.0);
  }
}

TEST_F(DataParallelTest, A3cParameterServerWithTwoWorkersSolvesCartPole) {
  if (communicator().size() != 3) GTEST_SKIP() << "needs 3 ranks (1 server, 2 workers)";
  dir_ = shared_directory("a3c");
  const double best =
      best_of_two_attempts("cartpole_a3c.yaml", {"train.eval_interval=50000"}, "a3c", false);
  if (communicator().rank() == 0) {
    EXPECT_GE(best, 475.0);
  }
}

// IMPALA: one process acting and learning in turn, or under mpirun rank 0 learning from the
// other ranks' trajectories. Either way a run keeps its budget, checkpoints, resumes, keeps its
// best policy, and its checkpoints evaluate in one process (a learner's batch of trajectories
// is wider than one actor's rollout). Across processes the learner logs how far the actors'
// policies lag behind its own.
TEST_F(DataParallelTest, ImpalaCheckpointsResumesAndKeepsTheBestPolicy) {
  dir_ = shared_directory("impala_checkpoints");
  run_checkpointed_resume_and_evaluate("cartpole_impala.yaml");
  expect_actor_states("whole");
  expect_actor_states("resumed");
  if (communicator().rank() != 0) return;
  std::ifstream csv(dir_ / "whole" / "metrics.csv");
  const std::string metrics((std::istreambuf_iterator<char>(csv)), {});
  EXPECT_EQ(metrics.find(",charts/policy_lag,") != std::string::npos, communicator().size() > 1);
}

// IMPALA across processes: rank 0 the learner, ranks 1-3 the actors, with the shipped config's
// budget. The trajectories arrive as the machine schedules the actors, so, as for A3C, a run
// is one sample: "solved" is an evaluation >= 475 at some point, and a run that falls short
// gets a second, independent one.
TEST_F(DataParallelTest, ImpalaWithThreeActorsSolvesCartPole) {
  if (communicator().size() != 4) GTEST_SKIP() << "needs 4 ranks (1 learner, 3 actors)";
  dir_ = shared_directory("impala");
  const double best =
      best_of_two_attempts("cartpole_impala.yaml", {"train.eval_interval=25000"}, "impala", false);
  if (communicator().rank() == 0) {
    EXPECT_GE(best, 475.0);
  }
}

// Ape-X, DQN and R2D2: one process acting and learning in turn, or under mpirun rank 0
// learning from the other ranks' prioritized transitions or sequences. Either way a run keeps
// its budget, checkpoints (with the replay and its priorities; R2D2's actors with their
// memories and sequences in progress), resumes, keeps its best policy and evaluates in one
// process.
TEST_F(DataParallelTest, ApexCheckpointsResumesAndKeepsTheBestPolicy) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs{
      {"cartpole_apex.yaml", {}},
      {"cartpole_novel_apex_r2d2.yaml",
       {"apex_r2d2.learning_starts=1000", "network.recurrent.hidden_size=16"}}};
  for (const auto& [config, overrides] : runs) {
    SCOPED_TRACE(config);
    dir_ = shared_directory("checkpoints_" + config);
    run_checkpointed_resume_and_evaluate(config, overrides);
    expect_actor_states("whole");
    expect_actor_states("resumed");
    if (communicator().rank() == 0) {
      std::ifstream csv(dir_ / "whole" / "metrics.csv");
      const std::string metrics((std::istreambuf_iterator<char>(csv)), {});
      EXPECT_NE(metrics.find(",losses/td_loss,"), std::string::npos);
      EXPECT_EQ(metrics.find(",charts/policy_lag,") != std::string::npos,
                communicator().size() > 1);
    }
    communicator().barrier();
    if (communicator().rank() == 0) fs::remove_all(dir_);
  }
}

// Memory across ranks: IMPALA's actors send each trajectory with the memory it started from,
// A3C's workers keep their own. Either way a run checkpoints (a learner's batch of memories),
// resumes, and its checkpoints evaluate in one process.
TEST_F(DataParallelTest, RecurrentActorsAndLearnersCheckpointAndResume) {
  const std::vector<std::string> memory{"env.id=CartPoleNoVel-v1", "network.recurrent.type=lstm",
                                        "network.recurrent.hidden_size=16"};
  for (const char* config : {"cartpole_impala.yaml", "cartpole_a3c.yaml"}) {
    SCOPED_TRACE(config);
    dir_ = shared_directory(std::string("memory_") + config);
    run_checkpointed_resume_and_evaluate(config, memory);
  }
}

// Each actor normalizes observations with its own running statistics; a learner's (what it
// evaluates, checkpoints and exports with) are its actors' merged, so the last checkpoint's
// count every observation the actors saw up to their last messages, as one process's count its
// own.
TEST_F(DataParallelTest, LearnersNormalizeObservationsWithTheirActorsStatistics) {
  dir_ = shared_directory("normalized");
  const std::vector<std::string> overrides{"train.total_steps=4000", "train.eval_interval=2000",
                                           "checkpoint.interval=2000",
                                           "env.wrappers=[normalize_observation]"};
  train("cartpole_impala.yaml", overrides, "run");
  if (communicator().rank() != 0) return;
  const Checkpoint last = Checkpoint::open(list_checkpoints(dir_ / "run").back());
  const ExperimentOptions options =
      load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_impala.yaml", overrides);
  auto envs = envs::make_vector_env(options.env, 0);
  const std::string bytes = last.read("envs.state");
  core::StateReader in(bytes, "envs.state");
  envs->load_state(in);
  const envs::RunningMeanStd& statistics =
      *envs->find_transform<envs::NormalizeObservation>()->statistics();
  const auto step = static_cast<double>(last.info().step);
  // A step adds its observation, and where an episode ended the final one too.
  EXPECT_GE(statistics.count(), 0.9 * step);
  EXPECT_LE(statistics.count(), 2.0 * step + 100.0);
  for (std::size_t i = 0; i < statistics.size(); ++i) {
    EXPECT_NE(statistics.var()[i], 1.0) << i;  // not the untouched start
    EXPECT_GT(statistics.var()[i], 0.0) << i;
  }
}

// The actors and learners of IMPALA and Ape-X take pixels (MinAtar's uint8 observations) and
// a convolutional encoder as they take vectors: they train, checkpoint (the actors' states with
// their frames) and resume.
TEST_F(DataParallelTest, ActorsAndLearnersTrainOnPixels) {
  const std::vector<std::string> pixels{"env.id=MinAtar/Breakout-v1", "env.num_envs=4",
                                        "network.encoder=minatar_cnn", "network.hidden_sizes=[]"};
  for (const char* config : {"cartpole_impala.yaml", "cartpole_apex.yaml"}) {
    SCOPED_TRACE(config);
    dir_ = shared_directory(std::string("pixels_") + config);
    std::vector<std::string> overrides = pixels;
    if (std::string(config) == "cartpole_apex.yaml") {
      overrides.insert(overrides.end(), {"apex_dqn.learning_starts=1000", "apex_dqn.batch_size=32",
                                         "apex_dqn.steps_per_update=8"});
    }
    run_checkpointed_resume_and_evaluate(config, overrides);
    expect_actor_states("resumed");
    communicator().barrier();
    if (communicator().rank() == 0) fs::remove_all(dir_);
  }
}

// Ape-X across processes: rank 0 the learner, ranks 1-3 the actors (epsilons 0.4, 0.016 and
// 0.0007), with half the shipped config's budget: 50k env steps, one update per 2 of them
// (rl-zoo's CartPole DQN budget and replay ratio). Which actor's transitions arrive when is the
// machine's doing, so, as for IMPALA, a run is one sample: "solved" is an evaluation >= 475 at
// some point, and a run that falls short gets a second, independent one.
TEST_F(DataParallelTest, ApexWithThreeActorsSolvesCartPole) {
  if (communicator().size() != 4) GTEST_SKIP() << "needs 4 ranks (1 learner, 3 actors)";
  dir_ = shared_directory("apex");
  const double best = best_of_two_attempts("cartpole_apex.yaml",
                                           {"train.total_steps=50000", "train.eval_interval=5000"},
                                           "apex_dqn", true);
  if (communicator().rank() == 0) {
    EXPECT_GE(best, 475.0);
  }
}

// The same with QR-DQN (rl-zoo's CartPole quantiles): actors' priorities are each transition's
// quantile loss under their copy of the network.
TEST_F(DataParallelTest, ApexQrDqnWithThreeActorsSolvesCartPole) {
  if (communicator().size() != 4) GTEST_SKIP() << "needs 4 ranks (1 learner, 3 actors)";
  dir_ = shared_directory("apex_qr");
  const double best =
      best_of_two_attempts("cartpole_apex.yaml",
                           {"train.total_steps=50000", "train.eval_interval=5000",
                            "apex_dqn.distributional=qr", "apex_dqn.n_quantiles=10"},
                           "apex_dqn", true);
  if (communicator().rank() == 0) {
    EXPECT_GE(best, 475.0);
  }
}

// R2D2 as its paper runs it: rank 0 the learner, ranks 1-3 the actors (epsilons 0.4, 0.016 and
// 0.0007), on CartPoleNoVel-v1 (no velocities: a memoryless policy stays near 50), with 60% of
// the shipped config's budget (60k env steps, the learning rate decaying over them). As for
// Ape-X, a run is one sample of the machine's scheduling: "solved" is an evaluation >= 475 at
// some point, and a run that falls short gets a second, independent one.
TEST_F(DataParallelTest, ApexR2d2WithThreeActorsSolvesCartPoleNoVel) {
  if (communicator().size() != 4) GTEST_SKIP() << "needs 4 ranks (1 learner, 3 actors)";
  dir_ = shared_directory("apex_r2d2");
  const double best = best_of_two_attempts("cartpole_novel_apex_r2d2.yaml",
                                           {"train.total_steps=60000", "train.eval_interval=5000"},
                                           "apex_r2d2", true);
  if (communicator().rank() == 0) {
    EXPECT_GE(best, 475.0);
  }
}

// The flat parameters of a learner's state in a checkpoint's `file` (IMPALA's or Ape-X's).
std::vector<float> learner_parameters(const Checkpoint& checkpoint, const std::string& file,
                                      const std::string& algo) {
  const std::string bytes = checkpoint.read(file);
  core::StateReader in(bytes, file);
  in.expect_tag("agents");
  EXPECT_EQ(in.value<std::uint64_t>(), 1u);
  if (algo == "impala") {
    in.expect_tag("impala");
    in.value<std::int64_t>();  // the rollout's width
    in.expect_tag("actor_critic");
  } else {
    in.expect_tag("dqn");
  }
  core::StateReader peek = in;
  std::vector<float> parameters(peek.value<std::uint64_t>());
  in.values(parameters);
  return parameters;
}

// Several learners (distributed.learners = 2): ranks 0 and 1 learn, each from its own actor
// (ranks 2 and 3), averaging their gradients and agreeing on the steps after each update: they
// stop together, their parameters stay bitwise equal, and the checkpoints hold both learners'
// states (the actors' stay on their ranks).
TEST_F(DataParallelTest, TwoLearnersStayEqual) {
  if (communicator().size() != 4) GTEST_SKIP() << "needs 4 ranks (2 learners, 2 actors)";
  dir_ = shared_directory("two_learners");
  for (const std::string algo : {"impala", "apex_dqn"}) {
    const auto run =
        train("cartpole_" + std::string(algo == "impala" ? "impala" : "apex") + ".yaml",
              {"distributed.learners=2", "train.total_steps=12000", "train.eval_interval=4000",
               "apex_dqn.learning_starts=1000"},
              algo);
    if (communicator().rank() != 0) continue;
    EXPECT_GE(run.training.steps, 12000) << algo;
    EXPECT_FALSE(run.training.interrupted) << algo;
    const auto checkpoints = list_checkpoints(dir_ / algo);
    ASSERT_FALSE(checkpoints.empty()) << algo;
    const Checkpoint last = Checkpoint::open(checkpoints.back());
    const std::vector<float> leader = learner_parameters(last, "agent.state", algo);
    EXPECT_EQ(learner_parameters(last, rank_file("agent.state", 1), algo), leader) << algo;
    EXPECT_FALSE(last.has(rank_file("agent.state", 2))) << algo;
  }
  // Three learners need three actors too: refused on every rank before any exchange.
  try {
    train("cartpole_impala.yaml", {"distributed.learners=3"}, "three");
    ADD_FAILURE() << "3 learners among 4 ranks";
  } catch (const distributed::CommunicatorError& e) {
    EXPECT_NE(std::string(e.what()).find("distributed.learners = 3 needs at least 6 ranks"),
              std::string::npos)
        << e.what();
  }
}

// Two learners' checkpoints (each learner's state, Ape-X's each with its replay) resume, with
// the same number of learners, and evaluate in one process.
TEST_F(DataParallelTest, TwoLearnersCheckpointAndResume) {
  if (communicator().size() != 4) GTEST_SKIP() << "needs 4 ranks (2 learners, 2 actors)";
  for (const char* config : {"cartpole_impala.yaml", "cartpole_apex.yaml"}) {
    dir_ = shared_directory(std::string("two_learners_resume_") + config);
    run_checkpointed_resume_and_evaluate(config, {"distributed.learners=2"});
    expect_actor_states("resumed", 2);
    if (communicator().rank() == 0) {
      const Checkpoint last = Checkpoint::open(list_checkpoints(dir_ / "resumed").back());
      EXPECT_TRUE(last.has(rank_file("agent.state", 1))) << config;
      EXPECT_FALSE(last.has(rank_file("agent.state", 2))) << config;
      const bool apex = std::string(config) == "cartpole_apex.yaml";
      EXPECT_EQ(last.has("replay.bin"), apex) << config;
      EXPECT_EQ(last.has(rank_file("replay.bin", 1)), apex) << config;
    }
    communicator().barrier();
    if (communicator().rank() == 0) fs::remove_all(dir_);
  }
}

// Actors go round the learners: with 2 learners among 5 ranks, learner 0 gets ranks 2 and 4,
// learner 1 rank 3.
TEST(ActorsLearnersLayoutTest, ActorsGoRoundTheLearners) {
  const ActorsLearnersLayout layout{2, 5};
  EXPECT_TRUE(layout.learns(1));
  EXPECT_FALSE(layout.learns(2));
  EXPECT_EQ(layout.actors_of(0), (std::vector<int>{2, 4}));
  EXPECT_EQ(layout.actors_of(1), (std::vector<int>{3}));
  for (const int actor : {2, 3, 4}) {
    const auto& mine = layout.actors_of(layout.learner_of(actor));
    EXPECT_NE(std::find(mine.begin(), mine.end(), actor), mine.end()) << actor;
  }
  EXPECT_EQ(ActorsLearnersLayout({1, 4}).actors_of(0), (std::vector<int>{1, 2, 3}));
}

// Several learners are for actors and learners only.
TEST_F(DataParallelTest, LearnersAreRefusedWithoutActors) {
  try {
    load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_ppo.yaml", {"distributed.learners=2"});
    ADD_FAILURE() << "distributed.learners with ppo";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("distributed.learners: ppo has no actors and learners"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mnrl::experiments
