#include "topologies/a3c/parameter_server.h"

#include <ATen/ops/empty.h>
#include <torch/optim/rmsprop.h>
#include <torch/utils.h>

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
#include "nn/learning_rate.h"

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

constexpr int kPushTag = 1;
constexpr int kReplyTag = 2;

// The fields after the gradient in a push, and after the parameters in a reply.
struct Push {
  enum Field { kSteps, kEpisodes, kReturnSum, kLengthSum, kStopRequested, kFields };
};
struct Reply {
  enum Field { kStop, kGlobalStep, kFields };
};

// A worker's optimizer: step() is one push and its reply (protocol steps 2 and 3).
class ParameterServerClient final : public torch::optim::Optimizer {
 public:
  ParameterServerClient(const at::Tensor& local_parameters, distributed::Communicator& communicator,
                        EpisodeTally& report, std::int64_t global_step)
      : Optimizer({torch::optim::OptimizerParamGroup({local_parameters})},
                  std::make_unique<torch::optim::RMSpropOptions>(0.0)),
        local_(local_parameters),
        communicator_(communicator),
        report_(report),
        push_(at::empty({local_parameters.numel() + Push::kFields}, at::kFloat)),
        reply_(at::empty({local_parameters.numel() + Reply::kFields}, at::kFloat)),
        global_step_(global_step) {
    torch::NoGradGuard no_grad;
    at::Tensor start = local_.detach();
    communicator_.broadcast(start, 0);  // protocol step 1
  }

  at::Tensor step(LossClosure closure = nullptr) override {
    torch::NoGradGuard no_grad;
    at::Tensor loss = closure ? closure() : at::Tensor();
    const std::int64_t p = local_.numel();
    push_.narrow(0, 0, p).copy_(local_.grad());
    float* fields = push_.data_ptr<float>() + p;
    fields[Push::kSteps] = static_cast<float>(report_.steps);
    fields[Push::kEpisodes] = static_cast<float>(report_.episodes);
    fields[Push::kReturnSum] = static_cast<float>(report_.return_sum);
    fields[Push::kLengthSum] = static_cast<float>(report_.length_sum);
    fields[Push::kStopRequested] = core::stop_requested() ? 1.0f : 0.0f;
    report_ = EpisodeTally();
    communicator_.send(push_, 0, kPushTag);
    communicator_.receive(reply_, 0, kReplyTag);
    local_.copy_(reply_.narrow(0, 0, p));
    stopped_ = reply_.data_ptr<float>()[p + Reply::kStop] != 0.0f;
    global_step_ = static_cast<std::int64_t>(reply_.data_ptr<float>()[p + Reply::kGlobalStep]);
    return loss;
  }

  bool stopped() const { return stopped_; }
  std::int64_t global_step() const { return global_step_; }

 private:
  at::Tensor local_;
  distributed::Communicator& communicator_;
  EpisodeTally& report_;
  at::Tensor push_, reply_;
  bool stopped_ = false;
  std::int64_t global_step_;
};

}  // namespace

// RMSprop on the shared model through a scratch copy whose gradient is each push's.
struct ParameterServer::Server {
  Server(std::shared_ptr<agents::SharedModel> model, const agents::A3cOptions& a3c)
      : parameter_count(model->parameters.numel()),
        scratch(model->parameters.clone().set_requires_grad(true)),
        push(at::empty({parameter_count + Push::kFields}, at::kFloat)),
        reply(at::empty({parameter_count + Reply::kFields}, at::kFloat)),
        rmsprop(scratch, std::move(model),
                torch::optim::RMSpropOptions(a3c.learning_rate)
                    .alpha(a3c.rms_prop_alpha)
                    .eps(a3c.optimizer_eps)) {
    scratch.mutable_grad() = push.narrow(0, 0, parameter_count);
  }

  const std::int64_t parameter_count;
  at::Tensor scratch, push, reply;
  agents::SharedRmsprop rmsprop;
};

ParameterServer::ParameterServer(const ExperimentOptions& options, MetricsSink& metrics,
                                 distributed::Communicator& communicator)
    : options_(options),
      metrics_(metrics),
      communicator_(communicator),
      workers_running_(communicator.size() - 1) {
  set_compute_threads(options.train.threads);
  learner_envs_ = make_learner_envs(options.env, options.seed, options.train.eval_episodes);
  model_ = make_a3c_shared_model(options, learner_envs_.envs->spec());
  server_ = std::make_unique<Server>(model_, options.hyperparameters<agents::A3cOptions>());
  parts_.envs = {learner_envs_.envs.get()};
  parts_.evaluator = learner_envs_.evaluator.get();
  parts_.shared = shared_model_state(*model_);
  player_.emplace(options_, learner_envs_.envs->spec());
}

ParameterServer::~ParameterServer() = default;

void ParameterServer::begin(const TrainingClock& clock) {
  communicator_.broadcast(model_->parameters, 0);  // protocol step 1
  clock_ = clock;
  step_ = clock.first_step;
}

void ParameterServer::serve_push() {
  const std::int64_t p = server_->parameter_count;
  const int worker =
      communicator_.receive(server_->push, distributed::Communicator::kAnySource, kPushTag);
  const float* fields = server_->push.data_ptr<float>() + p;
  if (fields[Push::kStopRequested] != 0 || core::stop_requested()) stopping_ = true;
  const std::int64_t total_steps = options_.train.total_steps;
  if (!stopping_) {
    const agents::A3cOptions& a3c = options_.hyperparameters<agents::A3cOptions>();
    const double remaining = 1.0 - static_cast<double>(step_) / static_cast<double>(total_steps);
    nn::set_learning_rate(server_->rmsprop,
                          agents::scheduled(a3c.learning_rate, a3c.lr_schedule, remaining));
    server_->rmsprop.step();
    step_ += static_cast<std::int64_t>(fields[Push::kSteps]);
    report_tally(metrics_, step_, fields[Push::kEpisodes], fields[Push::kReturnSum],
                 fields[Push::kLengthSum]);
    metrics_.scalar(step_, "charts/SPS", clock_.steps_per_second(step_));
    metrics_.progress(step_);
    stopping_ = step_ >= total_steps;
  }
  float* answer = server_->reply.data_ptr<float>();
  server_->reply.narrow(0, 0, p).copy_(model_->parameters);
  answer[p + Reply::kStop] = stopping_ ? 1.0f : 0.0f;
  answer[p + Reply::kGlobalStep] = static_cast<float>(step_);
  communicator_.send(server_->reply, worker, kReplyTag);
  if (stopping_) --workers_running_;
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
                                         local, communicator, report, resumed_at.value_or(0));
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
