#include "experiments/a3c_parameter_server.h"

#include <chrono>

#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <torch/optim/rmsprop.h>
#include <torch/utils.h>

#include "agents/a3c/a3c_workers.h"
#include "agents/a3c/shared_rmsprop.h"
#include "agents/schedule.h"
#include "core/rng.h"
#include "core/stop_signal.h"
#include "distributed/communicator.h"
#include "experiments/agent_factory.h"
#include "experiments/learner_actor.h"
#include "core/seed_streams.h"

namespace mnrl::experiments {
namespace {

constexpr int kPushTag = 1;
constexpr int kReplyTag = 2;

// The fields after the gradient in a push, and after the parameters in a reply.
enum PushField { kSteps, kEpisodes, kReturnSum, kLengthSum, kStopRequested, kPushFields };
enum ReplyField { kStop, kGlobalStep, kReplyFields };

// A worker's episodes and steps since its last push, filled by its training loop.
class WorkerReport final : public MetricsSink {
 public:
  void scalar(std::int64_t, const std::string& name, double value) override {
    if (name == "charts/episodic_return") {
      episodes += 1;
      return_sum += value;
    } else if (name == "charts/episodic_length") {
      length_sum += value;
    }
  }
  double steps = 0, episodes = 0, return_sum = 0, length_sum = 0;
};

// A worker's optimizer: step() is one push and its reply (protocol steps 2 and 3).
class ParameterServerClient final : public torch::optim::Optimizer {
 public:
  ParameterServerClient(const at::Tensor& local_parameters, distributed::Communicator& communicator,
                        WorkerReport& report)
      : Optimizer({torch::optim::OptimizerParamGroup({local_parameters})},
                  std::make_unique<torch::optim::RMSpropOptions>(0.0)),
        local_(local_parameters),
        communicator_(communicator),
        report_(report),
        push_(at::empty({local_parameters.numel() + kPushFields}, at::kFloat)),
        reply_(at::empty({local_parameters.numel() + kReplyFields}, at::kFloat)) {
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
    fields[kSteps] = static_cast<float>(report_.steps);
    fields[kEpisodes] = static_cast<float>(report_.episodes);
    fields[kReturnSum] = static_cast<float>(report_.return_sum);
    fields[kLengthSum] = static_cast<float>(report_.length_sum);
    fields[kStopRequested] = core::stop_requested() ? 1.0f : 0.0f;
    report_ = WorkerReport();
    communicator_.send(push_, 0, kPushTag);
    communicator_.receive(reply_, 0, kReplyTag);
    local_.copy_(reply_.narrow(0, 0, p));
    stopped_ = reply_.data_ptr<float>()[p + kStop] != 0.0f;
    global_step_ = static_cast<std::int64_t>(reply_.data_ptr<float>()[p + kGlobalStep]);
    return loss;
  }

  bool stopped() const { return stopped_; }
  std::int64_t global_step() const { return global_step_; }

 private:
  at::Tensor local_;
  distributed::Communicator& communicator_;
  WorkerReport& report_;
  at::Tensor push_, reply_;
  bool stopped_ = false;
  std::int64_t global_step_ = 0;
};

TrainingResult run_worker(const ExperimentOptions& options,
                          distributed::Communicator& communicator) {
  const int worker = communicator.rank() - 1;
  ExperimentOptions mine = options;
  mine.seed = static_cast<std::int64_t>(
      core::derive_seed(static_cast<std::uint64_t>(options.seed),
                        core::kWorkerEnvStream + static_cast<std::uint64_t>(worker)) >> 1);
  auto envs = envs::make_vector_env(mine.env, static_cast<std::uint64_t>(mine.seed));
  torch::manual_seed(static_cast<std::uint64_t>(mine.seed));
  WorkerReport report;
  ParameterServerClient* client = nullptr;
  auto agent = agents::make_a3c_worker_with(mine.hyperparameters<agents::A3cOptions>(), agent_setup(mine, envs->spec()), [&](const at::Tensor& local) {
    auto made = std::make_unique<ParameterServerClient>(local, communicator, report);
    client = made.get();
    return made;
  });
  envs->reset();
  LearnerActor actor(*agent, *envs);
  const auto start = std::chrono::steady_clock::now();
  while (!client->stopped()) {
    actor.step();
    report.steps += actor.num_envs();
    actor.report_episodes(report, 0);
    actor.update_if_ready(report, {client->global_step(), options.train.total_steps});
  }
  TrainingResult result;
  result.steps = client->global_step();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

TrainingResult run_server(const ExperimentOptions& options, MetricsSink& metrics,
                          distributed::Communicator& communicator) {
  const auto seed = static_cast<std::uint64_t>(options.seed);
  ExperimentOptions one_env = options;
  one_env.env.num_envs = 1;
  // Envs only for the spec and for the evaluator to take its wrappers from.
  auto envs = envs::make_vector_env(one_env.env, core::derive_seed(seed, core::kTrainEnvStream));
  auto shared = make_a3c_shared_model(options, envs->spec());
  communicator.broadcast(shared->parameters, 0);  // protocol step 1
  const agents::AgentSetup setup = agent_setup(options, envs->spec());
  const auto make_player = [&](agents::SharedModel& model) {
    return agents::make_a3c_player(options.hyperparameters<agents::A3cOptions>(), setup, model);
  };
  Evaluator evaluator(options.env, options.train.eval_episodes,
                      core::derive_seed(seed, core::kEvalEnvStream), *envs);

  // RMSprop on the shared model through a scratch copy whose gradient is each push's.
  const std::int64_t p = shared->parameters.numel();
  at::Tensor scratch = shared->parameters.clone().set_requires_grad(true);
  at::Tensor push = at::empty({p + kPushFields}, at::kFloat);
  scratch.mutable_grad() = push.narrow(0, 0, p);
  const agents::A3cOptions& a3c = options.hyperparameters<agents::A3cOptions>();
  agents::SharedRmsprop rmsprop(
      scratch, shared,
      torch::optim::RMSpropOptions(a3c.learning_rate).alpha(a3c.rms_prop_alpha).eps(a3c.optimizer_eps));
  at::Tensor reply = at::empty({p + kReplyFields}, at::kFloat);

  const std::int64_t total_steps = options.train.total_steps;
  std::int64_t step = 0;
  std::int64_t next_eval = options.train.eval_interval > 0 ? options.train.eval_interval
                                                           : total_steps + 1;
  int workers_running = communicator.size() - 1;
  bool stopping = false;
  TrainingResult result;
  const auto start = std::chrono::steady_clock::now();
  while (workers_running > 0) {
    const int worker = communicator.receive(push, distributed::Communicator::kAnySource, kPushTag);
    const float* fields = push.data_ptr<float>() + p;
    if (fields[kStopRequested] != 0 || core::stop_requested()) {
      result.interrupted = result.interrupted || !stopping;
      stopping = true;
    }
    if (!stopping) {
      const double remaining = 1.0 - static_cast<double>(step) / static_cast<double>(total_steps);
      rmsprop.param_groups().front().options().set_lr(
          agents::scheduled(a3c.learning_rate, a3c.lr_schedule, remaining));
      rmsprop.step();
      step += static_cast<std::int64_t>(fields[kSteps]);
      if (fields[kEpisodes] > 0) {
        metrics.scalar(step, "charts/episodic_return", fields[kReturnSum] / fields[kEpisodes]);
        metrics.scalar(step, "charts/episodic_length", fields[kLengthSum] / fields[kEpisodes]);
      }
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      metrics.scalar(step, "charts/SPS", static_cast<double>(step) / seconds);
      metrics.progress(step);
      if (step >= next_eval && step < total_steps) {
        evaluate_and_record(evaluator, *make_player(*shared), metrics,
                            step);
        next_eval += options.train.eval_interval;
      }
      stopping = step >= total_steps;
    }
    float* answer = reply.data_ptr<float>();
    reply.narrow(0, 0, p).copy_(shared->parameters);
    answer[p + kStop] = stopping ? 1.0f : 0.0f;
    answer[p + kGlobalStep] = static_cast<float>(step);
    communicator.send(reply, worker, kReplyTag);
    if (stopping) --workers_running;
  }
  if (!result.interrupted &&
      !evaluate_and_record(evaluator, *make_player(*shared), metrics,
                           step, &result.final_evaluation)) {
    result.interrupted = result.stopped_in_final_evaluation = true;
  }
  result.steps = step;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

TrainingResult train_a3c_parameter_server(const ExperimentOptions& options, MetricsSink& metrics,
                                          distributed::Communicator& communicator) {
  set_compute_threads(options.train.threads);
  return communicator.rank() == 0 ? run_server(options, metrics, communicator)
                                  : run_worker(options, communicator);
}

}  // namespace mnrl::experiments
