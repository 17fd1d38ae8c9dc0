#include "experiments/a3c_training.h"

#include <atomic>
#include <condition_variable>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "agents/a3c/a3c_workers.h"
#include "core/rng.h"
#include "core/stop_signal.h"
#include "experiments/agent_factory.h"
#include "experiments/learner_actor.h"
#include "core/seed_streams.h"

namespace mnrl::experiments {
namespace {

// Serializes the workers' reports into one sink.
class LockedMetrics final : public MetricsSink {
 public:
  explicit LockedMetrics(MetricsSink& sink) : sink_(sink) {}
  void scalar(std::int64_t step, const std::string& name, double value) override {
    std::lock_guard<std::mutex> lock(mutex_);
    sink_.scalar(step, name, value);
  }
  void progress(std::int64_t step) override {
    std::lock_guard<std::mutex> lock(mutex_);
    sink_.progress(step);
  }
  void flush() override {
    std::lock_guard<std::mutex> lock(mutex_);
    sink_.flush();
  }

 private:
  MetricsSink& sink_;
  std::mutex mutex_;
};

// What the workers share besides the model.
struct Coordination {
  std::int64_t total_steps = 0;
  std::int64_t first_step = 0;           // where this process started (after a resume)
  std::atomic<std::int64_t> steps{0};    // env steps taken by all workers
  std::atomic<bool> stop{false};          // an error, Ctrl-C, or the budget reached
  std::chrono::steady_clock::time_point start;
  std::mutex error_mutex;
  std::exception_ptr error;               // the first worker error

  // Pausing for a checkpoint: workers check `pause_requested` at each step boundary and wait
  // there; the checkpoint is written once every worker still running has paused.
  std::atomic<bool> pause_requested{false};
  std::mutex pause_mutex;
  std::condition_variable pause_changed;
  int running_workers = 0;  // under pause_mutex
  int paused_workers = 0;   // under pause_mutex

  bool running() const {
    return !stop.load(std::memory_order_relaxed) &&
           steps.load(std::memory_order_relaxed) < total_steps;
  }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  // Worker side: waits while a pause is requested.
  void pause_point() {
    if (!pause_requested.load()) return;
    std::unique_lock<std::mutex> lock(pause_mutex);
    ++paused_workers;
    pause_changed.notify_all();
    pause_changed.wait(lock, [this] { return !pause_requested.load(); });
    --paused_workers;
  }
  void worker_finished() {
    std::lock_guard<std::mutex> lock(pause_mutex);
    --running_workers;
    pause_changed.notify_all();
  }
  // Main side: runs `action` once every worker still running has paused, unless a worker
  // failed meanwhile (its state may be half-updated: nothing to save). The workers are released
  // afterwards, also when `action` throws.
  template <class Action>
  void while_paused(const Action& action) {
    std::unique_lock<std::mutex> lock(pause_mutex);
    pause_requested = true;
    struct Release {
      Coordination& shared;
      ~Release() {
        shared.pause_requested = false;
        shared.pause_changed.notify_all();
      }
    } release{*this};
    pause_changed.wait(lock, [this] { return paused_workers == running_workers || stop.load(); });
    if (!stop.load()) action();
  }
};

void run_worker(agents::Agent& agent, envs::VectorEnv& envs, Coordination& shared,
                MetricsSink& metrics) {
  LearnerActor actor(agent, envs);
  while (shared.running() && !core::stop_requested()) {
    shared.pause_point();
    if (!shared.running()) break;
    actor.step();
    const std::int64_t step =
        shared.steps.fetch_add(actor.num_envs(), std::memory_order_relaxed) + actor.num_envs();
    actor.report_episodes(metrics, step);
    if (actor.update_if_ready(metrics, {std::min(step, shared.total_steps), shared.total_steps})) {
      metrics.scalar(step, "charts/SPS",
                     static_cast<double>(step - shared.first_step) / shared.elapsed());
    }
    metrics.progress(step);
  }
}

}  // namespace

TrainingResult train_a3c(const ExperimentOptions& options, MetricsSink& sink,
                         const CheckpointSettings* checkpoints) {
  const auto seed = static_cast<std::uint64_t>(options.seed);
  set_compute_threads(options.train.threads);
  LockedMetrics metrics(sink);
  const int workers = options.hyperparameters<agents::A3cOptions>().workers;

  std::vector<std::unique_ptr<envs::VectorEnv>> worker_envs;
  for (int k = 0; k < workers; ++k) {
    worker_envs.push_back(envs::make_vector_env(
        options.env, core::derive_seed(seed, core::kWorkerEnvStream + static_cast<std::uint64_t>(k))));
  }
  const envs::EnvSpec& spec = worker_envs.front()->spec();
  auto shared_model = make_a3c_shared_model(options, spec);
  std::vector<std::unique_ptr<agents::Agent>> agents;
  const agents::A3cOptions& a3c = options.hyperparameters<agents::A3cOptions>();
  const agents::AgentSetup setup = agent_setup(options, spec);
  for (int k = 0; k < workers; ++k) agents.push_back(agents::make_a3c_worker(a3c, setup, shared_model));
  Evaluator evaluator(options.env, options.train.eval_episodes,
                      core::derive_seed(seed, core::kEvalEnvStream), *worker_envs.front());
  // Evaluation plays a consistent snapshot of the shared model through an agent of its own.
  const auto evaluate = [&](std::int64_t step, EvaluationResult* result) {
    return evaluate_and_record(evaluator, *agents::make_a3c_player(a3c, setup, *shared_model), metrics,
                               step, result);
  };

  TrainingParts parts;
  for (int k = 0; k < workers; ++k) {
    parts.agents.push_back(agents[static_cast<std::size_t>(k)].get());
    parts.envs.push_back(worker_envs[static_cast<std::size_t>(k)].get());
  }
  parts.evaluator = &evaluator;
  parts.shared = shared_model.get();
  const std::int64_t eval_interval = options.train.eval_interval;
  LoopState loop;
  loop.next_eval = eval_interval > 0 ? eval_interval : options.train.total_steps + 1;
  const bool resumed = checkpoints && checkpoints->resume_from;
  const bool episodes_restored =
      resumed && resume_from_checkpoint(*checkpoints, options, loop, parts);
  for (int k = 0; k < workers && !episodes_restored; ++k) {
    if (resumed) {
      worker_envs[static_cast<std::size_t>(k)]->reseed(core::derive_seed(
          core::derive_seed(seed, core::kWorkerEnvStream + static_cast<std::uint64_t>(k)),
          static_cast<std::uint64_t>(loop.step)));
    }
    worker_envs[static_cast<std::size_t>(k)]->reset();
  }

  Coordination shared;
  shared.total_steps = options.train.total_steps;
  shared.first_step = loop.step;
  shared.steps = loop.step;
  shared.running_workers = workers;
  shared.start = std::chrono::steady_clock::now();
  CheckpointSchedule schedule(checkpoints, options, loop);
  const auto write_checkpoint = [&] {  // with every worker paused or stopped
    metrics.flush();
    LoopState now = loop;
    now.step = shared.steps.load();
    now.seconds += shared.elapsed();
    schedule.write(now, parts);
  };
  std::vector<std::thread> threads;
  for (int k = 0; k < workers; ++k) {
    threads.emplace_back([&, k] {
      try {
        run_worker(*agents[static_cast<std::size_t>(k)], *worker_envs[static_cast<std::size_t>(k)],
                   shared, metrics);
      } catch (...) {
        std::lock_guard<std::mutex> lock(shared.error_mutex);
        if (!shared.error) shared.error = std::current_exception();
        shared.stop = true;
      }
      shared.worker_finished();
    });
  }

  // Evaluations and checkpoints on schedule while the workers run.
  std::exception_ptr main_error;
  try {
    while (shared.running() && !core::stop_requested()) {
      const std::int64_t step = shared.steps.load(std::memory_order_relaxed);
      if (step >= loop.next_eval && step < shared.total_steps) {
        evaluate(step, nullptr);
        loop.next_eval += eval_interval;
      }
      if (schedule.due(step)) shared.while_paused(write_checkpoint);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  } catch (...) {
    main_error = std::current_exception();
    shared.stop = true;
  }
  for (auto& thread : threads) thread.join();
  if (main_error) std::rethrow_exception(main_error);
  if (shared.error) std::rethrow_exception(shared.error);

  TrainingResult result;
  result.steps = shared.steps.load();
  result.interrupted = result.steps < shared.total_steps;
  // The checkpoint comes first: a stop during the final evaluation loses nothing.
  write_checkpoint();
  result.checkpoint = schedule.newest();
  if (!result.interrupted && !evaluate(result.steps, &result.final_evaluation)) {
    result.interrupted = result.stopped_in_final_evaluation = true;
  }
  result.seconds = loop.seconds + shared.elapsed();
  return result;
}

}  // namespace mnrl::experiments
