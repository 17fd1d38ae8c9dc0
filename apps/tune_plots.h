#pragma once

#include <filesystem>
#include <string>

namespace mnrl::apps {

// The pictures of a tuning study, beside its trials.csv: objective.png (each trial's objective
// by trial number, pruned ones at their best evaluation, the best so far as a line) and
// slices.png (the objective against each parameter). Returns the files written, or throws
// std::runtime_error (gnuplot missing or failing; the study itself is complete without them).
std::string draw_tune_plots(const std::filesystem::path& study_dir);

}  // namespace mnrl::apps
