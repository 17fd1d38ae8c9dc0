#include "topologies/a3c/worker_threads.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>

#include "agents/a3c/a3c_workers.h"
#include "core/rng.h"
#include "core/seed_streams.h"
#include "core/stop_signal.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/env_stepper.h"

namespace mnrl::topologies {
namespace {

using experiments::Advance;
using experiments::EnvStepper;
using experiments::Evaluator;
using experiments::ExperimentOptions;
using experiments::MetricsSink;
using experiments::TrainingClock;

std::uint64_t worker_env_seed(const ExperimentOptions& options, int worker) {
  return core::derive_seed(static_cast<std::uint64_t>(options.seed),
                           core::kWorkerEnvStream + static_cast<std::uint64_t>(worker));
}

}  // namespace

// What the workers share besides the model.
struct WorkerCoordination {
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

  explicit WorkerCoordination(MetricsSink& sink) : metrics(sink) {}

  LockedMetrics metrics;
  std::int64_t total_steps = 0;
  TrainingClock clock;
  std::atomic<std::int64_t> steps{0};  // env steps taken by all workers
  std::atomic<bool> stop{false};       // an error, Ctrl-C, or the budget reached
  std::mutex error_mutex;
  std::exception_ptr error;  // the first worker error

  // Pausing: workers check at each step boundary whether to wait there: while a pause is
  // requested, or once the steps reached `hold_at` (the loop's next evaluation, checkpoint or
  // the budget: the loop sees that step before the workers go past it, however late its thread
  // runs). A pause's action runs once every worker still running has paused.
  std::atomic<bool> pause_requested{false};
  std::atomic<std::int64_t> hold_at{std::numeric_limits<std::int64_t>::max()};
  std::mutex pause_mutex;
  std::condition_variable pause_changed;
  int running_workers = 0;  // under pause_mutex
  int paused_workers = 0;   // under pause_mutex

  bool running() const {
    return !stop.load(std::memory_order_relaxed) &&
           steps.load(std::memory_order_relaxed) < total_steps;
  }
  bool held() const {
    return pause_requested.load() || (steps.load() >= hold_at.load() && running());
  }
  // Worker side: waits while held.
  void pause_point() {
    if (!held()) return;
    std::unique_lock<std::mutex> lock(pause_mutex);
    ++paused_workers;
    pause_changed.notify_all();
    pause_changed.wait(lock, [this] { return !held(); });
    --paused_workers;
  }
  bool all_paused() const { return paused_workers == running_workers; }  // under pause_mutex
  // Loop side: moves the hold to `until` and waits until the steps reach it with every worker
  // held there (or the run stops); the step reached.
  std::int64_t advance_to(std::int64_t until) {
    std::unique_lock<std::mutex> lock(pause_mutex);
    hold_at = until;
    pause_changed.notify_all();
    // Polled as well: Ctrl-C (core::stop_requested) does not notify.
    while (!((steps.load() >= until && all_paused()) || !running() || core::stop_requested())) {
      pause_changed.wait_for(lock, std::chrono::milliseconds(5));
    }
    return steps.load();
  }
  void worker_finished() {
    std::lock_guard<std::mutex> lock(pause_mutex);
    --running_workers;
    pause_changed.notify_all();
  }
  // Loop side: runs `action` once every worker still running has paused, unless a worker
  // failed meanwhile (its state may be half-updated: nothing to save). The workers are released
  // afterwards, also when `action` throws.
  void while_paused(const std::function<void()>& action) {
    std::unique_lock<std::mutex> lock(pause_mutex);
    pause_requested = true;
    struct Release {
      WorkerCoordination& shared;
      ~Release() {
        shared.pause_requested = false;
        shared.pause_changed.notify_all();
      }
    } release{*this};
    pause_changed.wait(lock, [this] { return all_paused() || stop.load(); });
    if (!stop.load()) action();
  }
  void run_worker(agents::Agent& agent, envs::VectorEnv& envs) {
    EnvStepper actor(agent, envs);
    while (running() && !core::stop_requested()) {
      pause_point();
      if (!running()) break;
      actor.step();
      const std::int64_t step =
          steps.fetch_add(actor.num_envs(), std::memory_order_relaxed) + actor.num_envs();
      actor.report_episodes(metrics, step);
      if (actor.update_if_ready(metrics, {std::min(step, total_steps), total_steps})) {
        metrics.scalar(step, "charts/SPS", clock.steps_per_second(step));
      }
      metrics.progress(step);
    }
  }
};

WorkerThreads::WorkerThreads(const ExperimentOptions& options, MetricsSink& metrics)
    : options_(options), shared_(std::make_unique<WorkerCoordination>(metrics)) {
  experiments::set_compute_threads(options.train.threads);
  const int workers = options.hyperparameters<agents::A3cOptions>().workers;
  for (int k = 0; k < workers; ++k) {
    envs_.push_back(envs::make_vector_env(options.env, worker_env_seed(options, k)));
  }
  const envs::EnvSpec& spec = envs_.front()->spec();
  model_ = make_a3c_shared_model(options, spec);
  const agents::AgentSetup setup = experiments::agent_setup(options, spec);
  for (int k = 0; k < workers; ++k) {
    workers_.push_back(
        agents::make_a3c_worker(options.hyperparameters<agents::A3cOptions>(), setup, model_));
  }
  evaluator_ = std::make_unique<Evaluator>(
      options.env, options.train.eval_episodes,
      core::derive_seed(static_cast<std::uint64_t>(options.seed), core::kEvalEnvStream),
      *envs_.front());
  for (int k = 0; k < workers; ++k) {
    parts_.agents.push_back(workers_[static_cast<std::size_t>(k)].get());
    parts_.envs.push_back(envs_[static_cast<std::size_t>(k)].get());
  }
  parts_.evaluator = evaluator_.get();
  parts_.shared = shared_model_state(*model_);
  player_.emplace(options_, spec);
  shared_->total_steps = options.train.total_steps;
}

WorkerThreads::~WorkerThreads() {
  // Only reached with threads running when the loop threw: stop and join them. (Under the
  // mutex: a worker between its check and its wait would miss the notification.)
  {
    std::lock_guard<std::mutex> lock(shared_->pause_mutex);
    shared_->stop = true;
    shared_->pause_requested = false;
    shared_->pause_changed.notify_all();
  }
  for (auto& thread : threads_) thread.join();
}

MetricsSink& WorkerThreads::metrics() { return shared_->metrics; }

void WorkerThreads::start_episodes(std::optional<std::int64_t> resumed_at) {
  for (std::size_t k = 0; k < envs_.size(); ++k) {
    if (resumed_at) {
      envs_[k]->reseed(core::derive_seed(worker_env_seed(options_, static_cast<int>(k)),
                                         static_cast<std::uint64_t>(*resumed_at)));
    }
    envs_[k]->reset();
  }
}

void WorkerThreads::begin(const TrainingClock& clock) {
  shared_->clock = clock;
  shared_->steps = clock.first_step;
  shared_->hold_at = clock.first_step;  // held until the loop's first advance
  shared_->running_workers = static_cast<int>(workers_.size());
  for (std::size_t k = 0; k < workers_.size(); ++k) {
    threads_.emplace_back([this, k] {
      try {
        shared_->run_worker(*workers_[k], *envs_[k]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(shared_->error_mutex);
        if (!shared_->error) shared_->error = std::current_exception();
        shared_->stop = true;
      }
      shared_->worker_finished();
    });
  }
}

Advance WorkerThreads::advance(std::int64_t until) {
  const std::int64_t step = shared_->advance_to(until);
  return {step, step < shared_->total_steps && (!shared_->running() || core::stop_requested())};
}

void WorkerThreads::while_consistent(const std::function<void()>& action) {
  if (threads_.empty()) return action();  // not begun, or ended
  shared_->while_paused(action);
}

std::int64_t WorkerThreads::end(std::int64_t) {
  {
    std::lock_guard<std::mutex> lock(shared_->pause_mutex);
    shared_->stop = true;
    shared_->pause_changed.notify_all();
  }
  for (auto& thread : threads_) thread.join();
  threads_.clear();
  if (shared_->error) std::rethrow_exception(shared_->error);
  return shared_->steps.load();
}

}  // namespace mnrl::topologies
