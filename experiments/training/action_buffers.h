#pragma once

#include <cstdint>
#include <vector>

#include "agents/agent.h"
#include "envs/space.h"
#include "envs/vector_env.h"

namespace mnrl::experiments {

// Memory for one batch of actions in the form the action space needs (indices for Discrete,
// flat values for Box), handed to the agent to fill and then to the vector env to step.
class ActionBuffers {
 public:
  ActionBuffers(const envs::Space& space, int batch) {
    const auto rows = static_cast<std::size_t>(batch);
    if (envs::is_discrete(space)) {
      indices_.resize(rows);
    } else {
      values_.resize(rows * static_cast<std::size_t>(envs::flat_size(space)));
    }
  }

  agents::ActionsOut out() {
    return {indices_.empty() ? nullptr : indices_.data(),
            values_.empty() ? nullptr : values_.data()};
  }
  envs::ActionBatch batch() const {
    if (!indices_.empty()) return {indices_.data(), nullptr, indices_.size()};
    return {nullptr, values_.data(), values_.size()};
  }

 private:
  std::vector<std::int64_t> indices_;
  std::vector<float> values_;
};

}  // namespace mnrl::experiments
