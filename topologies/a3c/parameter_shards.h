#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "experiments/config/experiment_options.h"

namespace mnrl::distributed {
class Communicator;
}

namespace mnrl::topologies {

// A3C's parameters sharded over parameter-server ranks (distributed.parameter_servers: P), as
// Distributed TensorFlow's ps tasks hold a model's variables: ranks 0..P-1 each hold one
// contiguous range of the flat parameters and of RMSprop's statistics, and every worker pushes
// each range's gradient to its server and takes that range's parameters back, from every
// server on its own (parameter_server.h has the whole protocol). Rank 0 is also the loop's:
// it counts the steps, reports, evaluates and checkpoints, gathering the other shards first.

// Where shard s lies in the flat parameters.
struct ShardRange {
  std::int64_t offset = 0;
  std::int64_t count = 0;
};
// `parameters` floats cut into `servers` ranges of equal size (the first ones one float more
// where they do not divide): RMSprop is elementwise, so a cut anywhere changes no arithmetic,
// and equal ranges give the servers equal work.
std::vector<ShardRange> shard_ranges(std::int64_t parameters, int servers);

// Messages (float tensors, point to point).
constexpr int kPushTag = 1;   // to a server: [gradient of its shard | Push fields]
constexpr int kReplyTag = 2;  // to a worker: [parameters of the shard | Reply fields]
constexpr int kShardTag = 3;  // rank 0 <-> server s: statistics at the start, state at gathers

// The fields after the gradient in a push. Rank 0 sends the other servers pushes of its own
// with a command other than kGradient and, from kPushes, the count of pushes it has received:
// a server carries the command out once it has received as many (a command can overtake other
// workers' pushes: MPI keeps the order of one sender's messages only).
struct Push {
  enum Field {
    kSteps,
    kEpisodes,
    kReturnSum,
    kLengthSum,
    kStopRequested,
    kCommand,
    kPushes,  // two fields (write_count)
    kFields = kPushes + 2
  };
  enum Command { kGradient, kGather, kStop };
};
// The fields after the parameters in a reply. kStop: rank 0's says stop (the workers follow
// it); another server's that it was asked to stop itself (Ctrl-C, SIGTERM), which the worker
// passes on to rank 0 in its next push.
struct Reply {
  enum Field { kStop, kGlobalStep, kFields = kGlobalStep + 2 };
};

// A count in two float fields from fields[first], exact below 2^48 (a float holds every
// integer below 2^24).
void write_count(float* fields, int first, std::int64_t count);
std::int64_t read_count(const float* fields, int first);

// One server's shard: its parameters and RMSprop statistics (rank 0's are views into its whole
// model), the buffer pushes arrive in and the one replies leave from.
class ShardServer {
 public:
  ShardServer(at::Tensor parameters, at::Tensor square_avg,
              const experiments::ExperimentOptions& options);

  at::Tensor& push() { return push_; }  // receive a push into it
  float push_field(Push::Field field) const;
  std::int64_t pushes_counted() const;  // a command's kPushes
  // RMSprop with the push's gradient at the learning rate scheduled for global step `step`.
  void apply_push(std::int64_t step);
  // Replies to `worker`'s push (the shard's parameters, then the fields) without waiting for
  // it to be received: a worker takes its shards' replies one server after another, and no
  // server waits for another's. Each worker's reply has a buffer of its own, delivered by the
  // time that worker pushes again.
  void reply_to(distributed::Communicator& communicator, int worker, bool stop, std::int64_t step);
  // The shard's state for a gather: [parameters | statistics].
  at::Tensor state() const;

 private:
  const experiments::ExperimentOptions& options_;
  at::Tensor parameters_, square_avg_, push_;
  std::vector<at::Tensor> replies_;  // by worker rank
};

// A server rank other than 0 (rank < P): takes its shard of the initial (or resumed)
// parameters and statistics, serves the workers' pushes and rank 0's gathers until rank 0 says
// stop; returns the global step it counted. `resumed_at`: the step resumed from.
std::int64_t run_shard_server(const experiments::ExperimentOptions& options,
                              distributed::Communicator& communicator,
                              std::optional<std::int64_t> resumed_at);

}  // namespace mnrl::topologies
