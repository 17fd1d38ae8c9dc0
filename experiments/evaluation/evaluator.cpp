#include "experiments/evaluation/evaluator.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/liveness.h"
#include "core/stop_signal.h"
#include "experiments/evaluation/episode_video.h"

namespace mnrl::experiments {
namespace {

// Bound on an evaluation episode when the env sets no time limit, so evaluation always ends.
constexpr std::int64_t kMaxEvaluationSteps = 1'000'000;

}  // namespace

Evaluator::Evaluator(const envs::EnvOptions& env, int episodes, std::uint64_t seed,
                     const envs::VectorEnv& training)
    : envs_(envs::make_evaluation_vector_env(env, episodes, seed, training)),
      actions_(envs_->spec().action_space, episodes) {}

std::optional<EvaluationResult> Evaluator::run(agents::Agent& agent, bool stochastic,
                                               EpisodeVideo* video) {
  const int n = envs_->num_envs();
  std::vector<double> returns(static_cast<std::size_t>(n));
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(n));
  std::vector<bool> done(static_cast<std::size_t>(n), false);
  int remaining = n;

  envs_->reset();
  agent.reset_evaluation_memory();
  started_ = true;
  if (video) video->capture(*envs_, done);
  for (std::int64_t step = 0; remaining > 0; ++step) {
    if (core::stop_requested()) return std::nullopt;
    core::report_alive();  // rank 0 evaluates alone while the other ranks wait
    if (step == kMaxEvaluationSteps) {
      throw std::runtime_error("evaluation: an episode of '" + envs_->spec().id + "' ran past " +
                               std::to_string(kMaxEvaluationSteps) +
                               " steps; set env.max_episode_steps");
    }
    // Finished envs keep stepping (their next episodes are ignored): one batch, one forward.
    if (stochastic) {
      agent.act_stochastic(envs_->observations(), n, actions_.out());
    } else {
      agent.act_greedy(envs_->observations(), n, actions_.out());
    }
    envs_->step(actions_.batch());
    agent.evaluation_episodes_ended(envs_->terminated(), envs_->truncated(), n);
    for (int i = 0; i < n; ++i) {
      if (done[i] || !(envs_->terminated()[i] || envs_->truncated()[i])) continue;
      done[i] = true;
      returns[i] = envs_->episode_returns()[i];
      lengths[i] = envs_->episode_lengths()[i];
      --remaining;
    }
    // Ended episodes have already restarted: their tiles keep the frame before the last step.
    if (video) video->capture(*envs_, done);
  }

  EvaluationResult result;
  result.episodes = n;
  for (int i = 0; i < n; ++i) {
    result.mean_return += returns[i] / n;
    result.mean_length += static_cast<double>(lengths[i]) / n;
  }
  for (int i = 0; i < n; ++i) {
    result.std_return += (returns[i] - result.mean_return) * (returns[i] - result.mean_return) / n;
  }
  result.std_return = std::sqrt(result.std_return);
  return result;
}

void Evaluator::save_state(core::StateWriter& out) const {
  out.tag("evaluator");
  out.value(started_);
  if (started_) envs_->save_state(out);
}

void Evaluator::load_state(core::StateReader& in) {
  in.expect_tag("evaluator");
  // Evaluation envs that cannot save their state start again from their seeds instead.
  started_ = in.value<bool>() && envs_->load_state(in);
}

void record_evaluation(MetricsSink& metrics, std::int64_t step, const EvaluationResult& result) {
  metrics.scalar(step, "eval/std_return", result.std_return);
  metrics.scalar(step, "eval/mean_length", result.mean_length);
  metrics.scalar(step, "eval/mean_return", result.mean_return);
}

bool evaluate_and_record(Evaluator& evaluator, agents::Agent& agent, MetricsSink& metrics,
                         std::int64_t step, EvaluationResult* result) {
  const std::optional<EvaluationResult> evaluation = evaluator.run(agent);
  if (!evaluation) return false;
  record_evaluation(metrics, step, *evaluation);
  if (result) *result = *evaluation;
  return true;
}

}  // namespace mnrl::experiments
