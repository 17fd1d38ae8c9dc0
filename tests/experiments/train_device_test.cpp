// train.device resolved for a process: auto takes a GPU only where there is one for each rank of
// the host and the algorithm trains on one; cuda where none is usable is a config error naming
// the key. (On a GPU machine the cuda branches are the gpu tests'.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <torch/cuda.h>

#include "core/config.h"
#include "distributed/communicator.h"
#include "experiments/training/train_device.h"

namespace mnrl::experiments {
namespace {

ExperimentOptions options_of(const std::string& config, const std::string& device) {
  return load_experiment(MNRL_SOURCE_DIR "/configs/" + config, {"train.device=" + device});
}

TEST(TrainDeviceTest, CpuAndAutoWithoutAGpuResolveToTheCpu) {
  EXPECT_EQ(resolve_train_device(options_of("cartpole_ppo.yaml", "cpu")), "cpu");
  EXPECT_EQ(resolve_train_device(options_of("cartpole_ppo.yaml", "auto"), 3),
            torch::cuda::is_available()
                ? "cuda:" + std::to_string(3 % torch::cuda::device_count())
                : "cpu");
  // A3C (Hogwild threads on the CPU), and gSDE, stay on the CPU under auto.
  EXPECT_EQ(resolve_train_device(options_of("cartpole_a3c.yaml", "auto")), "cpu");
  EXPECT_EQ(resolve_train_device(options_of("pendulum_a2c.yaml", "auto")), "cpu");
  EXPECT_FALSE(trains_on_cuda(options_of("cartpole_a3c.yaml", "auto")));
  EXPECT_EQ(trains_on_cuda(options_of("pendulum_sac.yaml", "auto")), torch::cuda::is_available());
}

// Validation estimates what the networks take with their gradients and Adam's moments; a GPU
// with less free is refused before training, naming the key.
TEST(TrainDeviceTest, AGpuWithLessMemoryFreeThanTheNetworksTakeIsRefusedByName) {
  const ExperimentOptions small = options_of("cartpole_ppo.yaml", "cpu");
  const ExperimentOptions large = load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_ppo.yaml",
                                                  {"network.hidden_sizes=[4096,4096]"});
  // Two networks of 4 x 64 + 64 x 64 weights (and biases and heads), 16 bytes per parameter.
  EXPECT_GT(small.network_bytes, 2 * (4 * 64 + 64 * 64) * 16.0);
  EXPECT_LT(small.network_bytes, 2 * (4 * 64 + 64 * 64) * 16.0 * 1.5);
  EXPECT_GT(large.network_bytes, 2 * 4096.0 * 4096.0 * 16.0);
  EXPECT_EQ(why_gpu_memory_short(small.network_bytes, 1e9, "cuda:0"), "");
  const std::string why =
      why_gpu_memory_short(large.network_bytes, 0.3 * 1024 * 1024 * 1024, "cuda:1");
  EXPECT_NE(why.find("network.hidden_sizes"), std::string::npos) << why;
  EXPECT_NE(why.find("take about 0.5 GiB, and cuda:1 has 0.3 GiB free"), std::string::npos) << why;
}

TEST(TrainDeviceTest, CudaWhereNoGpuIsUsableIsAConfigErrorNamingTheKey) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "a GPU is usable here";
  for (const char* device : {"cuda", "cuda:1"}) {
    try {
      resolve_train_device(options_of("cartpole_dqn.yaml", device));
      ADD_FAILURE() << device << " resolved";
    } catch (const core::ConfigError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(std::string("train.device: ") + device + ", but no GPU is usable"),
                std::string::npos)
          << message;
      EXPECT_NE(message.find("config.yaml"), std::string::npos) << message;
    }
  }
  EXPECT_THROW(trains_on_cuda(options_of("cartpole_ppo.yaml", "cuda")), core::ConfigError);
}

// IMPALA's and Ape-X's actors act on the CPU: auto asks a GPU of the host's learners only (14
// actors and a learner take a host's one GPU), where a data-parallel job needs one per rank.
TEST(TrainDeviceTest, AutoCountsTheLearnersOfAnActorsAndLearnersJob) {
  ::setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "15", 1);
  const int gpus = torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
  EXPECT_EQ(resolve_train_device(options_of("cartpole_impala.yaml", "auto")),
            gpus >= 1 ? "cuda:0" : "cpu");
  EXPECT_EQ(resolve_train_device(options_of("cartpole_apex.yaml", "auto")),
            gpus >= 1 ? "cuda:0" : "cpu");
  EXPECT_EQ(resolve_train_device(options_of("cartpole_ppo.yaml", "auto")),
            gpus >= 15 ? "cuda:0" : "cpu");
  ::unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
}

TEST(TrainDeviceTest, RanksOnThisHostComeFromTheLauncher) {
  ::setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3", 1);
  EXPECT_EQ(distributed::ranks_on_this_host(), 3);
  ::setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3x", 1);  // not a count: not believed
  EXPECT_EQ(distributed::ranks_on_this_host(), 1);
  ::unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
}

// srun's step layout lists the nodes in order, a count or a count repeated ("2(x3),1": 2 tasks
// on nodes 0 to 2, 1 on node 3); SLURM_NODEID is this node's place in it.
TEST(TrainDeviceTest, RanksOnThisHostComeFromSlurmsStepLayout) {
  if (std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE") || std::getenv("MPI_LOCALNRANKS") ||
      std::getenv("SLURM_STEP_TASKS_PER_NODE") || std::getenv("SLURM_NTASKS_PER_NODE")) {
    GTEST_SKIP() << "the launcher's own counts are set (run under mpirun or srun)";
  }
  ::setenv("SLURM_STEP_TASKS_PER_NODE", "2(x3),1", 1);
  ::setenv("SLURM_NODEID", "2", 1);
  EXPECT_EQ(distributed::ranks_on_this_host(), 2);
  ::setenv("SLURM_NODEID", "3", 1);
  EXPECT_EQ(distributed::ranks_on_this_host(), 1);
  ::setenv("SLURM_STEP_TASKS_PER_NODE", "4,3", 1);
  ::setenv("SLURM_NODEID", "1", 1);
  EXPECT_EQ(distributed::ranks_on_this_host(), 3);
  ::setenv("SLURM_NTASKS_PER_NODE", "5", 1);  // srun's --ntasks-per-node: after the layout
  ::setenv("SLURM_STEP_TASKS_PER_NODE", "2(x3", 1);  // not a layout: not believed
  EXPECT_EQ(distributed::ranks_on_this_host(), 5);
  ::unsetenv("SLURM_NTASKS_PER_NODE");
  EXPECT_EQ(distributed::ranks_on_this_host(), 1);
  ::unsetenv("SLURM_STEP_TASKS_PER_NODE");
  ::unsetenv("SLURM_NODEID");
}

// srun without an MPI plugin starts tasks that cannot meet: each would train alone, all into
// one run directory. Refused, saying how to start them.
TEST(TrainDeviceTest, SrunWithoutPmixIsRefused) {
  if (distributed::launched_by_mpi() || std::getenv("SLURM_STEP_NUM_TASKS")) {
    GTEST_SKIP() << "runs as a plain process, outside srun";
  }
  ::setenv("SLURM_STEP_NUM_TASKS", "2", 1);
  try {
    distributed::make_communicator("auto");
    ADD_FAILURE() << "two srun tasks without PMIx were accepted";
  } catch (const distributed::CommunicatorError& e) {
    EXPECT_NE(std::string(e.what()).find("srun --mpi=pmix"), std::string::npos) << e.what();
  }
  ::setenv("SLURM_STEP_NUM_TASKS", "1", 1);
  EXPECT_NO_THROW(distributed::make_communicator("auto"));
  ::unsetenv("SLURM_STEP_NUM_TASKS");
}

}  // namespace
}  // namespace mnrl::experiments
