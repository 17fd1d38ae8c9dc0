#include "experiments/training/topology_registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "agents/registry.h"

namespace mnrl::experiments {
namespace {

// A program linking mnrl::topologies has every built-in algorithm's topology registered (the
// library is named by no symbol: a linker that dropped it would leave A3C, IMPALA and Ape-X
// without theirs).
TEST(TopologyRegistryTest, EveryRegisteredAlgorithmsTopologyIsThere) {
  const auto& algorithms = agents::AgentRegistry::global();
  for (const std::string& algo : algorithms.names()) {
    EXPECT_TRUE(TopologyRegistry::global().contains(algorithms.at(algo).topology()))
        << algo << " names topology '" << algorithms.at(algo).topology() << "'";
  }
  for (const char* name :
       {"replicas", "a3c_workers", "impala_actors", "apex_actors", "apex_r2d2_actors"}) {
    EXPECT_TRUE(TopologyRegistry::global().contains(name)) << name;
  }
}

TEST(TopologyRegistryTest, UnknownAndDuplicateNamesAreRefused) {
  try {
    TopologyRegistry::global().at("impala_actor");
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown topology 'impala_actor' (did you mean "
                                         "'impala_actors'?); registered: "),
              std::string::npos)
        << e.what();
  }
  const auto& replicas = TopologyRegistry::global().at("replicas");
  EXPECT_THROW(TopologyRegistry::global().add(
                   "replicas", std::shared_ptr<const TopologyKind>(&replicas, [](auto*) {})),
               std::invalid_argument);
}

}  // namespace
}  // namespace mnrl::experiments
