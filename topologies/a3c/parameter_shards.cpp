#include "topologies/a3c/parameter_shards.h"

#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <torch/utils.h>

#include "agents/a3c/a3c_options.h"
#include "agents/a3c/shared_rmsprop.h"
#include "agents/schedule.h"
#include "core/seed_streams.h"
#include "core/stop_signal.h"
#include "distributed/communicator.h"
#include "experiments/training/agent_factory.h"
#include "topologies/a3c/a3c_topology.h"

namespace mnrl::topologies {

std::vector<ShardRange> shard_ranges(std::int64_t parameters, int servers) {
  std::vector<ShardRange> ranges;
  std::int64_t offset = 0;
  for (int s = 0; s < servers; ++s) {
    const std::int64_t count = parameters / servers + (s < parameters % servers ? 1 : 0);
    ranges.push_back({offset, count});
    offset += count;
  }
  return ranges;
}

void write_count(float* fields, int first, std::int64_t count) {
  fields[first] = static_cast<float>(count >> 24);
  fields[first + 1] = static_cast<float>(count & ((1 << 24) - 1));
}

std::int64_t read_count(const float* fields, int first) {
  return (static_cast<std::int64_t>(fields[first]) << 24) +
         static_cast<std::int64_t>(fields[first + 1]);
}

ShardServer::ShardServer(at::Tensor parameters, at::Tensor square_avg,
                         const experiments::ExperimentOptions& options)
    : options_(options),
      parameters_(std::move(parameters)),
      square_avg_(std::move(square_avg)),
      push_(at::empty({parameters_.numel() + Push::kFields}, at::kFloat)) {}

float ShardServer::push_field(Push::Field field) const {
  return push_.data_ptr<float>()[parameters_.numel() + field];
}

std::int64_t ShardServer::pushes_counted() const {
  return read_count(push_.data_ptr<float>() + parameters_.numel(), Push::kPushes);
}

void ShardServer::apply_push(std::int64_t step) {
  const auto& a3c = options_.hyperparameters<agents::A3cOptions>();
  const double remaining =
      1.0 - static_cast<double>(step) / static_cast<double>(options_.train.total_steps);
  torch::NoGradGuard no_grad;
  agents::rmsprop_update(parameters_, square_avg_, push_.narrow(0, 0, parameters_.numel()),
                         agents::scheduled(a3c.learning_rate, a3c.lr_schedule, remaining),
                         a3c.rms_prop_alpha, a3c.optimizer_eps);
}

void ShardServer::reply_to(distributed::Communicator& communicator, int worker, bool stop,
                           std::int64_t step) {
  const std::int64_t count = parameters_.numel();
  if (replies_.size() <= static_cast<std::size_t>(worker)) replies_.resize(worker + 1);
  at::Tensor& reply = replies_[static_cast<std::size_t>(worker)];
  if (!reply.defined()) reply = at::empty({count + Reply::kFields}, at::kFloat);
  // The worker took its last reply before it pushed again: that send completes here at once.
  while (communicator.sends_pending(worker) > 0) {
  }
  reply.narrow(0, 0, count).copy_(parameters_);
  float* fields = reply.data_ptr<float>() + count;
  fields[Reply::kStop] = stop ? 1.0f : 0.0f;
  write_count(fields, Reply::kGlobalStep, step);
  communicator.start_send(reply, worker, kReplyTag);
}

at::Tensor ShardServer::state() const { return at::cat({parameters_, square_avg_}); }

std::int64_t run_shard_server(const experiments::ExperimentOptions& options,
                              distributed::Communicator& communicator,
                              std::optional<std::int64_t> resumed_at) {
  experiments::set_compute_threads(options.train.threads);
  // The whole model only for the start's broadcast (its size is every rank's).
  at::Tensor whole;
  {
    const auto envs = envs::make_vector_env(
        options.env,
        core::derive_seed(static_cast<std::uint64_t>(options.seed), core::kTrainEnvStream));
    whole = make_a3c_shared_model(options, envs->spec())->parameters;
  }
  communicator.broadcast(whole, 0);
  const ShardRange range = shard_ranges(whole.numel(), options.distributed.parameter_servers)
                               .at(static_cast<std::size_t>(communicator.rank()));
  at::Tensor square_avg = at::empty({range.count}, at::kFloat);
  communicator.receive(square_avg, 0, kShardTag);
  ShardServer server(whole.narrow(0, range.offset, range.count).clone(), square_avg, options);
  whole = at::Tensor();

  // As rank 0 does (parameter_server.h, protocol step 3), counting the steps the same pushes
  // carry for the learning-rate schedule and the budget; the workers take rank 0's stop.
  std::int64_t step = resumed_at.value_or(0);
  std::int64_t pushes = 0;  // gradient pushes received
  bool stopping = false;    // applies no more pushes
  // Rank 0's command waiting for `command_after` pushes (kGradient: none).
  Push::Command command = Push::kGradient;
  std::int64_t command_after = 0;
  for (;;) {
    if (command != Push::kGradient && pushes >= command_after) {
      if (command == Push::kStop) {
        communicator.wait_for_sends(0);
        return step;
      }
      communicator.send(server.state(), 0, kShardTag);  // kGather
      command = Push::kGradient;
    }
    const int sender =
        communicator.receive(server.push(), distributed::Communicator::kAnySource, kPushTag);
    const auto kind = static_cast<Push::Command>(server.push_field(Push::kCommand));
    if (kind != Push::kGradient) {
      command = kind;
      command_after = server.pushes_counted();
      continue;
    }
    ++pushes;
    if (server.push_field(Push::kStopRequested) != 0 || core::stop_requested()) stopping = true;
    if (!stopping) {
      server.apply_push(step);
      step += static_cast<std::int64_t>(server.push_field(Push::kSteps));
      stopping = step >= options.train.total_steps;
    }
    server.reply_to(communicator, sender, core::stop_requested(), step);
  }
}

}  // namespace mnrl::topologies
