#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "apps/learning_curve.h"

namespace mnrl::apps {

// What `mnrl report` compares: configs, each trained with several seeds.
struct ReportRun {
  std::filesystem::path dir;
  std::int64_t seed = 0;
  Curve curve;                        // the report's metric, as metrics.csv holds it
  std::optional<double> final_score;  // the final evaluation's mean return, once finished
};

struct ReportConfig {
  std::string label;
  std::vector<ReportRun> runs;
};

// The metric `mnrl report` draws by default: the evaluations' mean return where every run has
// evaluations, else the training episodes' returns.
inline constexpr const char* kAutoMetric = "auto";

// The configs `inputs` name, each input a study directory (one config: its seeds' runs), a run
// directory, or either as LABEL=PATH. Run directories given alone whose config.yaml is the same
// but for its seed form one config, labelled by its `name` (LABEL= names it). Sets `metric` where
// it is "auto". Throws CurveError naming the input that cannot be read.
std::vector<ReportConfig> read_report_configs(const std::vector<std::string>& inputs,
                                              std::string& metric);

// A config's runs on common steps: at each step, each run's mean of its points since the step
// before (or its latest point before it, where it has none there). The steps: those of the run
// with the fewest points, from where every run has begun to where the first one ends, thinned
// to at most `max_points`. Empty where the runs do not overlap.
struct CurvesOnSteps {
  std::vector<std::int64_t> steps;
  std::vector<std::vector<double>> values;  // [step][run]
};
CurvesOnSteps on_common_steps(const ReportConfig& config, int max_points);

}  // namespace mnrl::apps
