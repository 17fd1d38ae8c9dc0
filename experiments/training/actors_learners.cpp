#include "experiments/training/actors_learners.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <torch/utils.h>

#include "agents/impala/impala.h"
#include "core/rng.h"
#include "core/seed_streams.h"
#include "core/stop_signal.h"
#include "distributed/communicator.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/env_stepper.h"
#include "experiments/training/episode_tally.h"
#include "experiments/training/worker_envs.h"

namespace mnrl::experiments {
namespace {

constexpr int kTrajectoryTag = 3;
constexpr int kParametersTag = 4;

// The fields after a trajectory, and after the parameters.
enum TrajectoryField {
  kSteps,
  kEpisodes,
  kReturnSum,
  kLengthSum,
  kStopRequested,
  kActedWith,
  kFinal,
  kTrajectoryFields
};
enum ParametersField { kStop, kVersion, kGlobalStep, kParametersFields };

const agents::ImpalaOptions& impala_options(const ExperimentOptions& options) {
  return options.hyperparameters<agents::ImpalaOptions>();
}

}  // namespace

ImpalaLearner::ImpalaLearner(const ExperimentOptions& options, MetricsSink& metrics,
                             distributed::Communicator& communicator)
    : options_(options),
      metrics_(metrics),
      communicator_(communicator),
      actors_running_(communicator.size() - 1) {
  set_compute_threads(options.train.threads);
  const auto seed = static_cast<std::uint64_t>(options.seed);
  envs_ = envs::make_vector_env(options.env, core::derive_seed(seed, core::kTrainEnvStream));
  // The learner's rollout holds a batch of trajectories side by side.
  ExperimentOptions batch = options;
  batch.env.num_envs *= impala_options(options).batch_trajectories;
  agent_ = make_agent(batch, envs_->spec());
  learner_ = &dynamic_cast<agents::Impala&>(*agent_);
  trajectory_floats_ = learner_->trajectory_floats(options.env.num_envs);
  evaluator_ = std::make_unique<Evaluator>(options.env, options.train.eval_episodes,
                                           core::derive_seed(seed, core::kEvalEnvStream), *envs_);
  parts_.agents = {agent_.get()};
  parts_.envs = {envs_.get()};
  parts_.evaluator = evaluator_.get();
}

ImpalaLearner::~ImpalaLearner() = default;

void ImpalaLearner::begin(const TrainingClock& clock) {
  at::Tensor parameters = learner_->parameters().detach();
  communicator_.broadcast(parameters, 0);  // protocol step 1
  clock_ = clock;
  step_ = clock.first_step;
}

bool ImpalaLearner::receive_batch() {
  const std::int64_t envs = options_.env.num_envs;
  const std::int64_t batch = impala_options(options_).batch_trajectories;
  at::Tensor message = at::empty({trajectory_floats_ + kTrajectoryFields}, at::kFloat);
  const float* fields = message.data_ptr<float>() + trajectory_floats_;
  double lag = 0.0;
  for (std::int64_t b = 0; b < batch;) {
    if (actors_running_ == 0) return false;
    communicator_.receive(message, distributed::Communicator::kAnySource, kTrajectoryTag);
    if (fields[kFinal] != 0) {
      --actors_running_;
      continue;
    }
    if (fields[kStopRequested] != 0 || core::stop_requested()) stopping_ = true;
    learner_->unpack_trajectory(message.data_ptr<float>(), envs, b * envs);
    step_ += static_cast<std::int64_t>(fields[kSteps]);
    report_tally(metrics_, step_, fields[kEpisodes], fields[kReturnSum], fields[kLengthSum]);
    lag += static_cast<double>(version_) - fields[kActedWith];
    ++b;
  }
  metrics_.scalar(step_, "charts/policy_lag", lag / static_cast<double>(batch));
  return true;
}

void ImpalaLearner::send_parameters(bool stop) {
  const at::Tensor& parameters = learner_->parameters();
  const std::int64_t p = parameters.numel();
  at::Tensor message = at::empty({p + kParametersFields}, at::kFloat);
  message.narrow(0, 0, p).copy_(parameters.detach());
  float* fields = message.data_ptr<float>() + p;
  fields[kStop] = stop ? 1.0f : 0.0f;
  fields[kVersion] = static_cast<float>(version_);
  fields[kGlobalStep] = static_cast<float>(step_);
  for (int actor = 1; actor < communicator_.size(); ++actor) {
    // An actor still to take the last parameters gets the next ones instead.
    if (!stop && communicator_.sends_pending(actor) > 0) continue;
    communicator_.start_send(message, actor, kParametersTag);
  }
}

Advance ImpalaLearner::advance(std::int64_t until) {
  const std::int64_t total_steps = options_.train.total_steps;
  do {
    if (!receive_batch()) break;
    report_update(metrics_, step_, learner_->update({step_, total_steps}));
    ++version_;
    metrics_.scalar(step_, "charts/SPS", clock_.steps_per_second(step_));
    metrics_.progress(step_);
    if (step_ >= total_steps) stopping_ = true;
    if (!stopping_ && version_ % impala_options(options_).broadcast_interval == 0) {
      send_parameters(/*stop=*/false);
    }
  } while (step_ < until && !stopping_);
  return {step_, stopping_ && step_ < total_steps};
}

std::int64_t ImpalaLearner::end(std::int64_t) {
  if (actors_running_ > 0) send_parameters(/*stop=*/true);  // protocol step 4
  at::Tensor message = at::empty({trajectory_floats_ + kTrajectoryFields}, at::kFloat);
  while (actors_running_ > 0) {
    communicator_.receive(message, distributed::Communicator::kAnySource, kTrajectoryTag);
    if (message.data_ptr<float>()[trajectory_floats_ + kFinal] != 0) --actors_running_;
  }
  communicator_.wait_for_sends(0);
  return step_;
}

agents::Agent& ImpalaLearner::evaluation_agent() { return *agent_; }

std::int64_t run_impala_actor(const ExperimentOptions& options,
                              distributed::Communicator& communicator,
                              std::optional<std::int64_t> resumed_at) {
  set_compute_threads(options.train.threads);
  auto [mine, envs] = make_worker_envs(options, communicator.rank(), resumed_at);
  auto agent = make_agent(mine, envs->spec());
  auto& impala = dynamic_cast<agents::Impala&>(*agent);
  torch::NoGradGuard no_grad;
  at::Tensor parameters = impala.parameters().detach();
  communicator.broadcast(parameters, 0);  // protocol step 1
  const std::int64_t p = parameters.numel();
  at::Tensor received = at::empty({p + kParametersFields}, at::kFloat);
  const float* received_fields = received.data_ptr<float>() + p;
  const std::int64_t trajectory_floats = impala.trajectory_floats(envs->num_envs());
  const std::int64_t queue_size = impala_options(options).queue_size;
  float version = 0;
  std::int64_t global_step = resumed_at.value_or(0);
  EpisodeTally tally;
  envs->reset();
  EnvStepper stepper(*agent, *envs);
  for (;;) {
    // The newest parameters sent; the stop flag comes last of all.
    bool fresh = false;
    while (communicator.has_message(0, kParametersTag)) {
      communicator.receive(received, 0, kParametersTag);
      fresh = true;
      global_step = static_cast<std::int64_t>(received_fields[kGlobalStep]);
      version = received_fields[kVersion];
    }
    if (fresh && received_fields[kStop] != 0) break;
    if (fresh) parameters.copy_(received.narrow(0, 0, p));
    while (!agent->update_ready()) {
      stepper.step();
      tally.steps += stepper.num_envs();
      stepper.report_episodes(tally, 0);
    }
    at::Tensor message = at::empty({trajectory_floats + kTrajectoryFields}, at::kFloat);
    impala.pack_trajectory(message.data_ptr<float>());
    float* fields = message.data_ptr<float>() + trajectory_floats;
    fields[kSteps] = static_cast<float>(tally.steps);
    fields[kEpisodes] = static_cast<float>(tally.episodes);
    fields[kReturnSum] = static_cast<float>(tally.return_sum);
    fields[kLengthSum] = static_cast<float>(tally.length_sum);
    fields[kStopRequested] = core::stop_requested() ? 1.0f : 0.0f;
    fields[kActedWith] = version;
    fields[kFinal] = 0.0f;
    tally = EpisodeTally();
    communicator.wait_for_sends(static_cast<int>(queue_size) - 1);
    communicator.start_send(message, 0, kTrajectoryTag);
  }
  at::Tensor final_message = at::zeros({trajectory_floats + kTrajectoryFields}, at::kFloat);
  final_message.data_ptr<float>()[trajectory_floats + kFinal] = 1.0f;
  communicator.start_send(final_message, 0, kTrajectoryTag);
  communicator.wait_for_sends(0);
  return global_step;
}

}  // namespace mnrl::experiments
