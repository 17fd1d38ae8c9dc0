#pragma once

#include <memory>

#include "distributed/communicator.h"
#include "experiments/config/experiment_options.h"

namespace mnrl::topologies {

// The ranks of a pipelined job (distributed.pipeline_stages = K): D = ranks / K pipelines of K
// consecutive ranks, rank r being stage r % K of pipeline r / K. A pipeline's activations then
// pass between neighbouring ranks (one host under mpirun's default placement) and only the
// replicas' gradient all-reduces go between pipelines. Each pipeline's stage 0 steps envs of
// its own and acts: the D of them are the ranks of a data-parallel job (experiments::Replicas),
// and the D ranks of each stage average their gradients before every update, so the replicas
// of a stage stay equal.
struct PipelineLayout {
  int stages = 1, pipelines = 1;
  int stage = 0, pipeline = 0;  // this rank's
  // This rank's pipeline, ranked by stage.
  std::unique_ptr<distributed::Communicator> stages_of_pipeline;
  // The ranks of this rank's stage in every pipeline, ranked by pipeline; null with one.
  std::unique_ptr<distributed::Communicator> stage_replicas;
  // Every pipeline's stage 0, ranked by pipeline; null on the other stages and with one.
  std::unique_ptr<distributed::Communicator> actors;
};

// Collective: every rank of `world` calls it, with the same options. The communicators wait
// distributed.timeout for a stalled rank, as the job's does.
PipelineLayout split_into_pipelines(distributed::Communicator& world,
                                    const experiments::DistributedOptions& options);

}  // namespace mnrl::topologies
