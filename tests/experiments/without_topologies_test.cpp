// A program linked without mnrl::topologies (only mnrl::experiments) has no topology for A3C,
// IMPALA or Ape-X: a config of one of them is refused when it is read, naming the algorithm,
// its topology and the library to link, while the algorithms that train as replicas work.
#include <gtest/gtest.h>

#include <string>

#include "core/config.h"
#include "experiments/config/experiment_options.h"
#include "experiments/training/topology_registry.h"

namespace mnrl::experiments {
namespace {

std::string config_error(const std::string& config) {
  try {
    load_experiment(MNRL_SOURCE_DIR "/configs/" + config, {});
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(WithoutTopologiesTest, AnAlgorithmWhoseTopologyIsMissingIsRefusedByName) {
  ASSERT_FALSE(TopologyRegistry::global().contains("a3c_workers"));
  for (const auto& [config, algo, topology] :
       {std::tuple{"cartpole_a3c.yaml", "a3c", "a3c_workers"},
        std::tuple{"cartpole_impala.yaml", "impala", "impala_actors"},
        std::tuple{"cartpole_apex.yaml", "apex_dqn", "apex_actors"},
        std::tuple{"cartpole_novel_apex_r2d2.yaml", "apex_r2d2", "apex_r2d2_actors"}}) {
    const std::string error = config_error(config);
    EXPECT_NE(error.find(std::string("algo: ") + algo + " trains as topology '" + topology +
                         "', which this program was built without (link mnrl::topologies"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find(config), std::string::npos) << "names the file: " << error;
  }
  EXPECT_EQ(config_error("cartpole_ppo.yaml"), "(no error)");
}

}  // namespace
}  // namespace mnrl::experiments
