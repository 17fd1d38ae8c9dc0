#include "topologies/a3c/parameter_server.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <torch/optim/rmsprop.h>
#include <torch/utils.h>

#include <chrono>

#include "agents/a3c/a3c_workers.h"
#include "agents/schedule.h"
#include "core/rng.h"
#include "core/seed_streams.h"
#include "core/stop_signal.h"
#include "distributed/communicator.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/env_stepper.h"
#include "experiments/training/episode_tally.h"
#include "experiments/training/worker_envs.h"

namespace mnrl::topologies {
namespace {

using experiments::Advance;
using experiments::agent_setup;
using experiments::EnvStepper;
using experiments::EpisodeTally;
using experiments::ExperimentOptions;
using experiments::make_learner_envs;
using experiments::make_worker_envs;
using experiments::MetricsSink;
using experiments::report_tally;
using experiments::set_compute_threads;
using experiments::TrainingClock;

// A worker's optimizer: step() is one push to every server and their replies (protocol
// steps 2 and 3).
class ParameterServerClient final : public torch::optim::Optimizer {
 public:
  ParameterServerClient(const at::Tensor& local_parameters, distributed::Communicator& communicator,
                        EpisodeTally& report, std::int64_t global_step, int servers)
      : Optimizer({torch::optim::OptimizerParamGroup({local_parameters})},
                  std::make_unique<torch::optim::RMSpropOptions>(0.0)),
        local_(local_parameters),
        communicator_(communicator),
        report_(report),
        shards_(shard_ranges(local_parameters.numel(), servers)),
        global_step_(global_step) {
    for (const ShardRange& shard : shards_) {
      pushes_.push_back(at::empty({shard.count + Push::kFields}, at::kFloat));
      replies_.push_back(at::empty({shard.count + Reply::kFields}, at::kFloat));
    }
    torch::NoGradGuard no_grad;
    at::Tensor start = local_.detach();
    communicator_.broadcast(start, 0);  // protocol step 1
  }

  at::Tensor step(LossClosure closure = nullptr) override {
    torch::NoGradGuard no_grad;
    at::Tensor loss = closure ? closure() : at::Tensor();
    const int servers = static_cast<int>(shards_.size());
    for (int s = 0; s < servers; ++s) {
      const ShardRange& shard = shards_[static_cast<std::size_t>(s)];
      at::Tensor& push = pushes_[static_cast<std::size_t>(s)];
      push.narrow(0, 0, shard.count).copy_(local_.grad().narrow(0, shard.offset, shard.count));
      float* fields = push.data_ptr<float>() + shard.count;
      fields[Push::kSteps] = static_cast<float>(report_.steps);
      fields[Push::kEpisodes] = static_cast<float>(report_.episodes);
      fields[Push::kReturnSum] = static_cast<float>(report_.return_sum);
      fields[Push::kLengthSum] = static_cast<float>(report_.length_sum);
      fields[Push::kStopRequested] = core::stop_requested() || stop_asked_elsewhere_ ? 1.0f : 0.0f;
      fields[Push::kCommand] = Push::kGradient;
      communicator_.start_send(push, s, kPushTag);
    }
    report_ = EpisodeTally();
    for (int s = 0; s < servers; ++s) {
      const ShardRange& shard = shards_[static_cast<std::size_t>(s)];
      at::Tensor& reply = replies_[static_cast<std::size_t>(s)];
      communicator_.receive(reply, s, kReplyTag);
      local_.narrow(0, shard.offset, shard.count).copy_(reply.narrow(0, 0, shard.count));
    }
    communicator_.wait_for_sends(0);  // received: the servers replied
    // Rank 0 counts the steps and says when to stop; another server asked to stop is passed on
    // to it with the next push.
    const float* fields = replies_.front().data_ptr<float>() + shards_.front().count;
    stopped_ = fields[Reply::kStop] != 0.0f;
    global_step_ = read_count(fields, Reply::kGlobalStep);
    for (int s = 1; s < servers; ++s) {
      const std::int64_t count = shards_[static_cast<std::size_t>(s)].count;
      if (replies_[static_cast<std::size_t>(s)].data_ptr<float>()[count + Reply::kStop] != 0.0f) {
        stop_asked_elsewhere_ = true;
      }
    }
    return loss;
  }

  bool stopped() const { return stopped_; }
  std::int64_t global_step() const { return global_step_; }

 private:
  at::Tensor local_;
  distributed::Communicator& communicator_;
  EpisodeTally& report_;
  const std::vector<ShardRange> shards_;
  std::vector<at::Tensor> pushes_, replies_;
  bool stopped_ = false;
  bool stop_asked_elsewhere_ = false;  // a server other than rank 0 was asked to stop
  std::int64_t global_step_;
};

}  // namespace

ParameterServer::ParameterServer(const ExperimentOptions& options, MetricsSink& metrics,
                                 distributed::Communicator& communicator)
    : options_(options),
      metrics_(metrics),
      communicator_(communicator),
      servers_(options.distributed.parameter_servers),
      workers_running_(communicator.size() - servers_) {
  set_compute_threads(options.train.threads);
  learner_envs_ = make_learner_envs(options.env, options.seed, options.train.eval_episodes);
  model_ = make_a3c_shared_model(options, learner_envs_.envs->spec());
  shards_ = shard_ranges(model_->parameters.numel(), servers_);
  const ShardRange& mine = shards_.front();
  server_ = std::make_unique<ShardServer>(model_->parameters.narrow(0, mine.offset, mine.count),
                                          model_->square_avg.narrow(0, mine.offset, mine.count),
                                          options_);
  parts_.envs = {learner_envs_.envs.get()};
  parts_.evaluator = learner_envs_.evaluator.get();
  parts_.shared = shared_model_state(*model_);
  player_.emplace(options_, learner_envs_.envs->spec());
}

ParameterServer::~ParameterServer() = default;

void ParameterServer::begin(const TrainingClock& clock) {
  communicator_.broadcast(model_->parameters, 0);  // protocol step 1
  for (int s = 1; s < servers_; ++s) {
    const ShardRange& shard = shards_[static_cast<std::size_t>(s)];
    communicator_.send(model_->square_avg.narrow(0, shard.offset, shard.count), s, kShardTag);
  }
  clock_ = clock;
  step_ = clock.first_step;
}

void ParameterServer::serve_push() {
  const auto waiting_from = std::chrono::steady_clock::now();
  const int worker =
      communicator_.receive(server_->push(), distributed::Communicator::kAnySource, kPushTag);
  waited_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - waiting_from).count();
  ++pushes_received_;
  if (server_->push_field(Push::kStopRequested) != 0 || core::stop_requested()) stopping_ = true;
  if (!stopping_) {
    server_->apply_push(step_);
    step_ += static_cast<std::int64_t>(server_->push_field(Push::kSteps));
    report_tally(metrics_, step_, server_->push_field(Push::kEpisodes),
                 server_->push_field(Push::kReturnSum), server_->push_field(Push::kLengthSum));
    metrics_.scalar(step_, "charts/SPS", clock_.steps_per_second(step_));
    // Near 0: the workers wait for rank 0 (it is the bottleneck); near 1: it waits for them.
    metrics_.scalar(step_, "charts/server_wait_share", waited_seconds_ / clock_.elapsed());
    metrics_.progress(step_);
    stopping_ = step_ >= options_.train.total_steps;
  }
  server_->reply_to(communicator_, worker, stopping_, step_);
  if (stopping_) --workers_running_;
}

void ParameterServer::command_servers(Push::Command command) {
  for (int s = 1; s < servers_; ++s) {
    const ShardRange& shard = shards_[static_cast<std::size_t>(s)];
    at::Tensor message = at::zeros({shard.count + Push::kFields}, at::kFloat);
    float* fields = message.data_ptr<float>() + shard.count;
    fields[Push::kCommand] = static_cast<float>(command);
    write_count(fields, Push::kPushes, pushes_received_);
    communicator_.send(message, s, kPushTag);
    if (command != Push::kGather) continue;
    at::Tensor state = at::empty({2 * shard.count}, at::kFloat);
    communicator_.receive(state, s, kShardTag);
    model_->parameters.narrow(0, shard.offset, shard.count).copy_(state.narrow(0, 0, shard.count));
    model_->square_avg.narrow(0, shard.offset, shard.count)
        .copy_(state.narrow(0, shard.count, shard.count));
  }
}

void ParameterServer::gather_shards() {
  if (servers_ > 1 && !servers_stopped_) command_servers(Push::kGather);
}

agents::Agent& ParameterServer::evaluation_agent() {
  gather_shards();
  return player_->play(*model_);
}

void ParameterServer::while_consistent(const std::function<void()>& action) {
  gather_shards();
  action();
}

Advance ParameterServer::advance(std::int64_t until) {
  do {
    serve_push();
  } while (step_ < until && !stopping_ && workers_running_ > 0);
  return {step_, stopping_ && step_ < options_.train.total_steps};
}

std::int64_t ParameterServer::end(std::int64_t) {
  stopping_ = true;
  while (workers_running_ > 0) serve_push();
  communicator_.wait_for_sends(0);
  // The final checkpoint and evaluation need the whole model once more; then the servers end.
  gather_shards();
  command_servers(Push::kStop);
  servers_stopped_ = true;
  return step_;
}

std::int64_t run_parameter_server_worker(const ExperimentOptions& options,
                                         distributed::Communicator& communicator,
                                         std::optional<std::int64_t> resumed_at) {
  set_compute_threads(options.train.threads);
  auto [mine, envs] = make_worker_envs(options, communicator.rank(), resumed_at);
  torch::manual_seed(static_cast<std::uint64_t>(mine.seed));
  EpisodeTally report;
  ParameterServerClient* client = nullptr;
  auto agent =
      agents::make_a3c_worker_with(mine.hyperparameters<agents::A3cOptions>(),
                                   agent_setup(mine, envs->spec()), [&](const at::Tensor& local) {
                                     auto made = std::make_unique<ParameterServerClient>(
                                         local, communicator, report, resumed_at.value_or(0),
                                         options.distributed.parameter_servers);
                                     client = made.get();
                                     return made;
                                   });
  envs->reset();
  EnvStepper actor(*agent, *envs);
  while (!client->stopped()) {
    actor.step();
    report.steps += actor.num_envs();
    actor.report_episodes(report, 0);
    actor.update_if_ready(report, {client->global_step(), options.train.total_steps});
  }
  return client->global_step();
}

}  // namespace mnrl::topologies
