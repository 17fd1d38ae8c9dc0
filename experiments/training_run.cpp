#include "experiments/training_run.h"

#include <sstream>

#include "core/build_info.h"
#include "core/run_directory.h"
#include "experiments/console_reporter.h"

namespace mnrl::experiments {
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
      << "final_evaluation:\n"
      << "  episodes: " << r.final_evaluation.episodes << "\n"
      << "  mean_return: " << r.final_evaluation.mean_return << "\n"
      << "  std_return: " << r.final_evaluation.std_return << "\n"
      << "  mean_length: " << r.final_evaluation.mean_length << "\n";
  return out.str();
}

}  // namespace

TrainingRunResult run_training(const ExperimentOptions& options,
                               const TrainingRunSettings& settings) {
  TrainingRunResult result;
  result.run_dir = core::create_run_directory(settings.run_dir, options.name);
  ExperimentOptions resolved = options;
  core::write_file_atomically(result.run_dir / "config.yaml",
                              core::to_yaml([&](core::ConfigVisitor& v) { resolved.visit(v); }));
  core::write_file_atomically(result.run_dir / "run_info.yaml", run_info_yaml(settings));

  CsvMetrics csv((result.run_dir / "metrics.csv").string());
  ConsoleReporter console(settings.console, options.train.total_steps, options.train.log_interval);
  MetricsFanOut metrics;
  metrics.add(&csv);
  metrics.add(&console);

  std::fprintf(settings.console, "mnrl %s: training %s on %s (%d envs), run directory %s\n",
               core::version(), options.algo.c_str(), options.env.id.c_str(),
               options.env.num_envs, result.run_dir.c_str());
  result.training = train(options, metrics);
  core::write_file_atomically(result.run_dir / "summary.yaml", summary_yaml(result.training));
  return result;
}

}  // namespace mnrl::experiments
