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
  // Algorithms without an autograd path, and gSDE, stay on the CPU under auto.
  EXPECT_EQ(resolve_train_device(options_of("pendulum_sac.yaml", "auto")), "cpu");
  EXPECT_EQ(resolve_train_device(options_of("pendulum_a2c.yaml", "auto")), "cpu");
  EXPECT_FALSE(trains_on_cuda(options_of("pendulum_sac.yaml", "auto")));
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

TEST(TrainDeviceTest, RanksOnThisHostComeFromTheLauncher) {
  ::setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3", 1);
  EXPECT_EQ(distributed::ranks_on_this_host(), 3);
  ::setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3x", 1);  // not a count: not believed
  EXPECT_EQ(distributed::ranks_on_this_host(), 1);
  ::unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
}

}  // namespace
}  // namespace mnrl::experiments
