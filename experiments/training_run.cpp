#include "experiments/training_run.h"

#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

#include "core/build_info.h"
#include "core/run_directory.h"
#include "experiments/console_reporter.h"
#include "experiments/tensorboard_metrics.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

// YAML double-quoted scalar.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string run_info_yaml(const TrainingRunSettings& settings) {
  std::ostringstream out;
  out << "command: " << quoted(settings.command_line) << "\n"
      << "mnrl_version: " << quoted(core::version()) << "\n"
      << "source_revision: " << quoted(core::source_revision()) << "\n"
      << "started: " << quoted(core::format_current_time("%Y-%m-%dT%H:%M:%SZ", /*utc=*/true)) << "\n";
  return out.str();
}

std::string summary_yaml(const TrainingResult& r) {
  std::ostringstream out;
  out.precision(9);
  out << "steps: " << r.steps << "\n"
      << "seconds: " << r.seconds << "\n"
      << "sps: " << (r.seconds > 0 ? static_cast<double>(r.steps) / r.seconds : 0.0) << "\n"
      << "interrupted: " << (r.interrupted ? "true" : "false") << "\n"
      << "checkpoint: " << quoted(r.checkpoint.string()) << "\n"
      << "final_evaluation:\n"
      << "  episodes: " << r.final_evaluation.episodes << "\n"
      << "  mean_return: " << r.final_evaluation.mean_return << "\n"
      << "  std_return: " << r.final_evaluation.std_return << "\n"
      << "  mean_length: " << r.final_evaluation.mean_length << "\n";
  return out.str();
}

// Trains in `run_dir` (config.yaml and run_info.yaml already there), from `resume_from` if set.
TrainingRunResult train_in(const fs::path& run_dir, const ExperimentOptions& options,
                           const TrainingRunSettings& settings,
                           std::optional<Checkpoint> resume_from) {
  TrainingRunResult result;
  result.run_dir = run_dir;
  std::optional<std::int64_t> resumed_at;
  if (resume_from) resumed_at = resume_from->info().step;
  CsvMetrics csv((run_dir / "metrics.csv").string(), resumed_at);
  ConsoleReporter console(settings.console, options.train.total_steps, options.train.log_interval,
                          resumed_at.value_or(0));
  MetricsFanOut metrics;
  metrics.add(&csv);
  metrics.add(&console);
  std::unique_ptr<TensorBoardMetrics> tensorboard;
  if (options.logging.tensorboard) {
    tensorboard = std::make_unique<TensorBoardMetrics>(run_dir, resumed_at.value_or(0));
    metrics.add(tensorboard.get());
  }

  if (resume_from) {
    std::fprintf(settings.console, "mnrl %s: resuming %s on %s at step %lld from %s\n",
                 core::version(), options.algo.c_str(), options.env.id.c_str(),
                 static_cast<long long>(*resumed_at), resume_from->directory().c_str());
  } else {
    std::fprintf(settings.console, "mnrl %s: training %s on %s (%d envs), run directory %s\n",
                 core::version(), options.algo.c_str(), options.env.id.c_str(),
                 options.env.num_envs, run_dir.c_str());
  }
  const CheckpointSettings checkpoints{run_dir, std::move(resume_from)};
  result.training = train(options, metrics, &checkpoints);
  core::write_file_atomically(run_dir / "summary.yaml", summary_yaml(result.training));
  return result;
}

}  // namespace

TrainingRunResult run_training(const ExperimentOptions& options,
                               const TrainingRunSettings& settings) {
  const fs::path run_dir = core::create_run_directory(settings.run_dir, options.name);
  ExperimentOptions resolved = options;
  core::write_file_atomically(run_dir / "config.yaml",
                              core::to_yaml([&](core::ConfigVisitor& v) { resolved.visit(v); }));
  core::write_file_atomically(run_dir / "run_info.yaml", run_info_yaml(settings));
  return train_in(run_dir, options, settings, std::nullopt);
}

TrainingRunResult resume_training(const fs::path& run_dir, const TrainingRunSettings& settings,
                                  const std::function<void(const std::string&)>& skipped) {
  std::error_code error;
  if (!fs::is_regular_file(run_dir / "config.yaml", error)) {
    throw core::RunDirectoryError("cannot resume '" + run_dir.string() +
                                  "': not a run directory (no config.yaml)");
  }
  const ExperimentOptions options = load_experiment((run_dir / "config.yaml").string(), {});
  Checkpoint checkpoint = open_latest_checkpoint(run_dir, skipped);
  check_checkpoint_matches(checkpoint, options);
  if (checkpoint.info().step >= options.train.total_steps) {
    throw CheckpointError("run '" + run_dir.string() + "' is complete (its latest checkpoint is at "
                          "step " + std::to_string(checkpoint.info().step) + " of train.total_steps " +
                          std::to_string(options.train.total_steps) + "); nothing to resume");
  }
  std::string run_info;
  {
    std::ifstream in(run_dir / "run_info.yaml");
    run_info.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (run_info.find("\nresumed:\n") == std::string::npos) run_info += "resumed:\n";
  run_info += "  - command: " + quoted(settings.command_line) + "\n" +
              "    from_checkpoint: " + quoted(checkpoint.directory().string()) + "\n" +
              "    started: " +
              quoted(core::format_current_time("%Y-%m-%dT%H:%M:%SZ", /*utc=*/true)) + "\n";
  core::write_file_atomically(run_dir / "run_info.yaml", run_info);
  return train_in(run_dir, options, settings, std::move(checkpoint));
}

}  // namespace mnrl::experiments
