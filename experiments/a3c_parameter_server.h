#pragma once

#include "experiments/experiment_options.h"
#include "experiments/metrics.h"
#include "experiments/single_learner_training.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::experiments {

// A3C across the processes of an mpirun job, in the manner of Distributed TensorFlow's
// parameter server: rank 0 holds the shared parameters and RMSprop's statistics; every other
// rank is one worker (an A2C learner on env.num_envs envs of its own; a3c.workers is for one
// process) that pushes its gradients and pulls the parameters, asynchronously.
//
// Protocol (point-to-point messages of float tensors; P = the number of parameters):
//  1. Start: rank 0 broadcasts the initial parameters (the only collective).
//  2. A worker, after each rollout's backward pass (gradients clipped), sends rank 0 a push
//     (tag 1): [gradient (P) | env steps since its last push, episodes ended, their return
//     sum, their length sum, 1 if this rank was asked to stop]. It then waits for the reply.
//  3. Rank 0 serves pushes in arrival order (MPI_ANY_SOURCE): applies the gradient with
//     RMSprop at the learning rate scheduled for the global step, counts the steps, reports the
//     episodes, and replies to that worker (tag 2): [parameters (P) | 1 to stop | global step].
//     The worker continues from those parameters: between its push and its next one, other
//     workers' updates land, so its gradients are computed on slightly stale parameters, as
//     in A3C.
//  4. Once the budget is spent, or any rank was asked to stop, rank 0 answers every further
//     push with the stop flag (without applying it) until each worker has been told; then it
//     evaluates the shared model. Workers return when told.
// A failing rank aborts the job (mnrl train), so no rank waits forever for a message.
// Such a run writes no checkpoints: the parameter server's state is not yet checkpointed.
TrainingResult train_a3c_parameter_server(const ExperimentOptions& options, MetricsSink& metrics,
                                          distributed::Communicator& communicator);

}  // namespace mnrl::experiments
