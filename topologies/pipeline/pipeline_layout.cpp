#include "topologies/pipeline/pipeline_layout.h"

namespace mnrl::topologies {

PipelineLayout split_into_pipelines(distributed::Communicator& world,
                                    const experiments::DistributedOptions& options) {
  PipelineLayout layout;
  layout.stages = options.pipeline_stages;
  layout.pipelines = world.size() / layout.stages;
  layout.stage = world.rank() % layout.stages;
  layout.pipeline = world.rank() / layout.stages;
  const auto timed = [&](std::unique_ptr<distributed::Communicator> communicator) {
    if (communicator) communicator->set_stall_timeout(options.timeout);
    return communicator;
  };
  // Every rank makes the same splits in the same order (split is collective); the layout
  // frees them in the reverse order, as communicators must end.
  layout.stages_of_pipeline = timed(world.split(layout.pipeline));
  if (layout.pipelines > 1) {
    layout.stage_replicas = timed(world.split(layout.stage));
    layout.actors = timed(world.split(layout.stage == 0 ? 0 : -1));
  }
  return layout;
}

}  // namespace mnrl::topologies
