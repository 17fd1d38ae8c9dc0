#include "apps/report_runs.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

#include "experiments/studies/seed_study.h"

namespace mnrl::apps {
namespace fs = std::filesystem;
namespace {

constexpr const char* kEvaluationMetric = "eval/mean_return";
constexpr const char* kTrainingMetric = "charts/episodic_return";

struct Input {
  std::string label;  // given as LABEL=PATH, else empty
  fs::path path;
};

Input parse_input(const std::string& text) {
  const std::size_t equals = text.find('=');
  std::error_code error;
  // A path with '=' in its name stays a path.
  if (equals == std::string::npos || equals == 0 || fs::exists(text, error)) return {"", text};
  return {text.substr(0, equals), text.substr(equals + 1)};
}

fs::path tidy(const fs::path& path) {
  fs::path tidy = path.lexically_normal();
  return tidy.filename().empty() ? tidy.parent_path() : tidy;
}

// A run's config.yaml without its seed, and its seed and name.
struct RunConfig {
  std::string without_seed;
  std::int64_t seed = 0;
  std::string name;
};

RunConfig run_config(const fs::path& run_dir) {
  try {
    const YAML::Node config = YAML::LoadFile((run_dir / "config.yaml").string());
    RunConfig out;
    out.seed = config["seed"] ? config["seed"].as<std::int64_t>() : 0;
    out.name = config["name"] ? config["name"].as<std::string>() : tidy(run_dir).filename().string();
    YAML::Node copy = YAML::Clone(config);
    copy.remove("seed");
    std::ostringstream text;
    text << copy;
    out.without_seed = text.str();
    return out;
  } catch (const std::exception& e) {
    throw CurveError("run '" + run_dir.string() + "': cannot read its config.yaml (" + e.what() +
                     "): give a run directory or a study directory");
  }
}

bool has_metric(const fs::path& run_dir, const std::string& metric) {
  try {
    read_curve(run_dir, metric);
    return true;
  } catch (const CurveError&) {
    return false;
  }
}

}  // namespace

std::vector<ReportConfig> read_report_configs(const std::vector<std::string>& inputs,
                                              std::string& metric) {
  std::vector<ReportConfig> configs;
  std::map<std::string, std::size_t> loose;  // config.yaml but the seed -> its config
  for (const std::string& text : inputs) {
    const Input input = parse_input(text);
    std::error_code error;
    if (!fs::is_directory(input.path, error)) {
      throw CurveError("'" + input.path.string() + "' is not a directory: give run or study "
                       "directories (LABEL=PATH to name one)");
    }
    if (experiments::is_seed_study(input.path)) {
      ReportConfig config{input.label.empty() ? tidy(input.path).filename().string() : input.label,
                          {}};
      try {
        for (const auto& [seed, dir] : experiments::study_runs(input.path)) {
          config.runs.push_back(ReportRun{dir, seed, {}, std::nullopt});
        }
      } catch (const std::runtime_error& e) {
        throw CurveError(e.what());
      }
      if (config.runs.empty()) {
        throw CurveError("study '" + input.path.string() + "' has no run that started");
      }
      configs.push_back(std::move(config));
      continue;
    }
    const RunConfig run = run_config(input.path);
    const auto [found, added] = loose.emplace(run.without_seed, configs.size());
    if (added) configs.push_back(ReportConfig{input.label.empty() ? run.name : input.label, {}});
    ReportConfig& config = configs[found->second];
    if (!input.label.empty()) config.label = input.label;
    config.runs.push_back(ReportRun{input.path, run.seed, {}, std::nullopt});
  }
  // Labels name one config each.
  std::map<std::string, int> uses;
  for (ReportConfig& config : configs) {
    const int n = ++uses[config.label];
    if (n > 1) config.label += " (" + std::to_string(n) + ")";
  }
  if (metric == kAutoMetric) {
    bool evaluated = true;
    for (const ReportConfig& config : configs) {
      for (const ReportRun& run : config.runs) evaluated = evaluated && has_metric(run.dir, kEvaluationMetric);
    }
    metric = evaluated ? kEvaluationMetric : kTrainingMetric;
  }
  for (ReportConfig& config : configs) {
    for (ReportRun& run : config.runs) {
      run.curve = read_curve(run.dir, metric);
      run.final_score = experiments::final_mean_return(run.dir);
    }
  }
  return configs;
}

CurvesOnSteps on_common_steps(const ReportConfig& config, int max_points) {
  std::int64_t first = std::numeric_limits<std::int64_t>::min();
  std::int64_t last = std::numeric_limits<std::int64_t>::max();
  const Curve* sparsest = nullptr;
  for (const ReportRun& run : config.runs) {
    first = std::max(first, run.curve.front().first);
    last = std::min(last, run.curve.back().first);
    if (!sparsest || run.curve.size() < sparsest->size()) sparsest = &run.curve;
  }
  std::vector<std::int64_t> candidates;
  for (const auto& point : *sparsest) {
    if (point.first >= first && point.first <= last &&
        (candidates.empty() || point.first > candidates.back())) {
      candidates.push_back(point.first);
    }
  }
  CurvesOnSteps out;
  const std::size_t keep = std::min<std::size_t>(candidates.size(), std::max(1, max_points));
  for (std::size_t i = 0; i < keep; ++i) {
    // Evenly by index, the last step always kept.
    out.steps.push_back(candidates[(i + 1) * candidates.size() / keep - 1]);
  }
  for (std::size_t s = 0; s < out.steps.size(); ++s) {
    const std::int64_t since = s == 0 ? std::numeric_limits<std::int64_t>::min() : out.steps[s - 1];
    std::vector<double> values;
    for (const ReportRun& run : config.runs) {
      double sum = 0.0, latest = 0.0;
      int count = 0;
      for (const auto& [step, value] : run.curve) {
        if (step > out.steps[s]) break;
        latest = value;
        if (step > since) {
          sum += value;
          ++count;
        }
      }
      values.push_back(count > 0 ? sum / count : latest);
    }
    out.values.push_back(std::move(values));
  }
  return out;
}

}  // namespace mnrl::apps
