#include "apps/tune_plots.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "apps/gnuplot.h"
#include "core/files.h"
#include "experiments/studies/search_space.h"
#include "experiments/studies/trial_journal.h"

namespace mnrl::apps {
namespace {
namespace fs = std::filesystem;
using experiments::Parameter;
using experiments::TrialRecord;

// A trial's place on the objective axis: its objective, or a pruned trial's best evaluation.
bool plotted_value(const TrialRecord& t, double& value) {
  if (t.value) {
    value = *t.value;
    return true;
  }
  if (t.state != "pruned" || t.reports.empty()) return false;
  value = -std::numeric_limits<double>::infinity();
  for (const auto& report : t.reports) value = std::max(value, report.second);
  return true;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

// Runs `script` (after the terminal and output lines) and moves the image into the study,
// labelled with `description`.
void draw(const fs::path& scratch, const fs::path& image, int width, int height,
          const std::string& description, const std::string& script) {
  const fs::path drawn = scratch / image.filename();
  write_text(scratch / "plot.gp", "set terminal pngcairo size " + std::to_string(width) + "," +
                                      std::to_string(height) + " noenhanced font 'sans,10'\n" +
                                      "set output " + gnuplot_quoted(drawn.string()) + "\n" +
                                      script);
  run_gnuplot((scratch / "plot.gp").string());
  core::write_file_atomically(
      image, png_with_text(core::read_regular_file(drawn, 1ull << 30, "gnuplot's image"),
                           "Description", description));
}

}  // namespace

std::string draw_tune_plots(const fs::path& study_dir) {
  // Under the journal's lock: processes that end together draw one at a time.
  const experiments::TrialJournal journal(study_dir);
  const experiments::TrialJournal::Lock lock(journal);
  const std::vector<TrialRecord> trials = journal.read();
  const std::vector<Parameter> space =
      experiments::read_search_space((study_dir / "space.yaml").string());
  ScratchDirectory scratch;
  std::ostringstream complete, pruned, best;
  double best_so_far = -std::numeric_limits<double>::infinity();
  for (const TrialRecord& t : trials) {
    double value = 0.0;
    if (!plotted_value(t, value)) continue;
    (t.value ? complete : pruned) << t.number << ' ' << value << '\n';
    if (t.value && *t.value > best_so_far) best_so_far = *t.value;
    if (std::isfinite(best_so_far)) best << t.number << ' ' << best_so_far << '\n';
  }
  write_text(scratch.path / "complete.dat", complete.str() + "\n");
  write_text(scratch.path / "pruned.dat", pruned.str() + "\n");
  write_text(scratch.path / "best.dat", best.str() + "\n");
  const auto quoted = [&](const char* file) { return gnuplot_quoted((scratch.path / file).string()); };
  draw(scratch.path, study_dir / "objective.png", 900, 500,
       "objective by trial: complete, pruned, best so far",
       "set title 'final mean return by trial (pruned trials at their best evaluation)'\n"
       "set xlabel 'trial'\nset ylabel 'final mean return'\nset grid\nset key bottom right\n"
       "plot " + quoted("complete.dat") + " using 1:2 with points pt 7 ps 1.2 lc 1 title "
       "'complete', " + quoted("pruned.dat") + " using 1:2 with points pt 2 ps 1 lc rgb "
       "'#999999' title 'pruned', " + quoted("best.dat") +
           " using 1:2 with steps lw 2 lc 2 title 'best so far'\n");
  // One panel per parameter: the objective of the complete trials against its value.
  const int columns = std::min<int>(3, static_cast<int>(space.size()));
  const int rows = (static_cast<int>(space.size()) + columns - 1) / columns;
  std::ostringstream panels;
  panels << "set multiplot layout " << rows << "," << columns
         << " title 'final mean return against each parameter (complete trials)'\n"
            "set grid\nunset key\n";
  std::string description = "parameters:\n";
  for (std::size_t i = 0; i < space.size(); ++i) {
    const Parameter& p = space[i];
    description += p.key + "\n";
    std::ostringstream points;
    for (const TrialRecord& t : trials) {
      const auto number = t.numbers.find(p.key);
      if (t.value && number != t.numbers.end()) points << number->second << ' ' << *t.value << '\n';
    }
    const std::string file = "slice" + std::to_string(i) + ".dat";
    write_text(scratch.path / file, points.str() + "\n");
    panels << "set xlabel " << gnuplot_quoted(p.key) << "\n";
    panels << (p.log ? "set logscale x\n" : "unset logscale x\n");
    if (p.kind == Parameter::Kind::kCategorical) {
      panels << "set xrange [-0.5:" << p.choices.size() - 0.5 << "]\nset xtics (";
      for (std::size_t c = 0; c < p.choices.size(); ++c) {
        panels << (c ? ", " : "") << gnuplot_quoted(p.choices[c]) << ' ' << c;
      }
      panels << ")\n";
    } else {
      panels << "set xrange [" << p.low << ":" << p.high << "]\nset xtics autofreq\n";
    }
    panels << "plot " << quoted(file.c_str()) << " using 1:2 with points pt 7 ps 1 lc 1\n";
  }
  panels << "unset multiplot\n";
  draw(scratch.path, study_dir / "slices.png", 300 * columns + 60, 260 * rows + 60, description,
       panels.str());
  return "objective.png, slices.png";
}

}  // namespace mnrl::apps
