// `mnrl report`: configs compared over their seeds, as rliable reports them: learning curves of
// the interquartile mean with bootstrap confidence bands, a final-score table, and the
// probability that one config improves on another.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/gnuplot.h"
#include "apps/report_runs.h"
#include "core/files.h"
#include "core/stop_signal.h"
#include "core/text.h"
#include "experiments/studies/score_statistics.h"

namespace mnrl::apps {
namespace {
namespace fs = std::filesystem;
using experiments::Aggregate;
using experiments::Interval;

struct ReportArguments {
  std::vector<std::string> inputs;
  std::string output = "report";
  std::string metric = kAutoMetric;
  int resamples = 10000;
  double confidence = 0.95;
  std::uint64_t seed = 0;
  int points = 100;
};

// A config's final scores and their aggregates.
struct FinalScores {
  std::vector<double> scores;  // the runs that finished, in order
  double mean = 0.0, iqm = 0.0, median = 0.0;
  Interval iqm_interval, mean_interval;
};

// P(X > Y) of two configs' final scores.
struct Improvement {
  std::size_t x = 0, y = 0;
  double probability = 0.0;
  Interval interval;
};

// One config's curve: at each step, the IQM across runs with its interval, and the mean.
struct CurveRow {
  std::int64_t step = 0;
  double iqm = 0.0, mean = 0.0;
  Interval interval;
};

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// Markdown table cells: a '|' would end the cell.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

class Report {
 public:
  Report(const ReportArguments& args, std::string metric, std::vector<ReportConfig> configs)
      : args_(args), metric_(std::move(metric)), configs_(std::move(configs)), random_(args.seed) {}

  void compute() {
    for (const ReportConfig& config : configs_) {
      FinalScores final;
      for (const ReportRun& run : config.runs) {
        if (run.final_score) final.scores.push_back(*run.final_score);
      }
      if (!final.scores.empty()) {
        final.mean = experiments::mean_of(final.scores);
        final.iqm = experiments::interquartile_mean(final.scores);
        final.median = experiments::median_of(final.scores);
        final.iqm_interval = interval(Aggregate::kInterquartileMean, final.scores);
        final.mean_interval = interval(Aggregate::kMean, final.scores);
      }
      finals_.push_back(std::move(final));
      std::vector<CurveRow> rows;
      const CurvesOnSteps curves = on_common_steps(config, args_.points);
      for (std::size_t s = 0; s < curves.steps.size(); ++s) {
        const std::vector<double>& values = curves.values[s];
        rows.push_back(CurveRow{curves.steps[s], experiments::interquartile_mean(values),
                                experiments::mean_of(values),
                                interval(Aggregate::kInterquartileMean, values)});
      }
      curves_.push_back(std::move(rows));
    }
    for (std::size_t x = 0; x < configs_.size(); ++x) {
      for (std::size_t y = x + 1; y < configs_.size(); ++y) {
        if (finals_[x].scores.empty() || finals_[y].scores.empty()) continue;
        improvements_.push_back(Improvement{
            x, y, experiments::probability_of_improvement(finals_[x].scores, finals_[y].scores),
            experiments::improvement_interval(finals_[x].scores, finals_[y].scores,
                                              args_.resamples, args_.confidence, random_)});
      }
    }
  }

  // Every file into `scratch`, then moved into the output directory.
  std::vector<std::string> write(const fs::path& scratch) {
    std::vector<std::string> files{"report.md", "scores.csv", "runs.csv", "curves.csv"};
    write_file(scratch / "scores.csv", scores_csv());
    write_file(scratch / "runs.csv", runs_csv());
    write_file(scratch / "curves.csv", curves_csv());
    if (!improvements_.empty()) {
      write_file(scratch / "improvement.csv", improvement_csv());
      files.push_back("improvement.csv");
    }
    if (draw_curves(scratch)) files.push_back("learning_curves.png");
    if (draw_final_scores(scratch)) files.push_back("final_scores.png");
    if (draw_improvement(scratch)) files.push_back("improvement.png");
    write_file(scratch / "report.md", markdown(files));
    return files;
  }

 private:
  Interval interval(Aggregate which, const std::vector<double>& scores) {
    return experiments::bootstrap_interval(which, scores, args_.resamples, args_.confidence,
                                           random_);
  }

  std::string percent() const { return number(args_.confidence * 100.0) + "%"; }

  static void write_file(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
  }

  std::string scores_csv() const {
    std::ostringstream csv;
    csv << "config,runs,finished,mean,mean_ci_low,mean_ci_high,iqm,iqm_ci_low,iqm_ci_high,"
           "median\n";
    for (std::size_t c = 0; c < configs_.size(); ++c) {
      const FinalScores& f = finals_[c];
      csv << core::csv_field(configs_[c].label) << ',' << configs_[c].runs.size() << ','
          << f.scores.size();
      if (f.scores.empty()) {
        csv << ",,,,,,,\n";
        continue;
      }
      csv << ',' << number(f.mean) << ',' << number(f.mean_interval.low) << ','
          << number(f.mean_interval.high) << ',' << number(f.iqm) << ','
          << number(f.iqm_interval.low) << ',' << number(f.iqm_interval.high) << ','
          << number(f.median) << '\n';
    }
    return csv.str();
  }

  std::string runs_csv() const {
    std::ostringstream csv;
    csv << "config,seed,run_dir,final_mean_return,last_step\n";
    for (const ReportConfig& config : configs_) {
      for (const ReportRun& run : config.runs) {
        csv << core::csv_field(config.label) << ',' << run.seed << ','
            << core::csv_field(run.dir.string()) << ','
            << (run.final_score ? number(*run.final_score) : "") << ',' << run.curve.back().first
            << '\n';
      }
    }
    return csv.str();
  }

  std::string curves_csv() const {
    std::ostringstream csv;
    csv << "config,step,runs,iqm,iqm_ci_low,iqm_ci_high,mean\n";
    for (std::size_t c = 0; c < configs_.size(); ++c) {
      for (const CurveRow& row : curves_[c]) {
        csv << core::csv_field(configs_[c].label) << ',' << row.step << ','
            << configs_[c].runs.size() << ',' << number(row.iqm) << ',' << number(row.interval.low)
            << ',' << number(row.interval.high) << ',' << number(row.mean) << '\n';
      }
    }
    return csv.str();
  }

  std::string improvement_csv() const {
    std::ostringstream csv;
    csv << "x,y,probability_x_improves_on_y,ci_low,ci_high\n";
    for (const Improvement& i : improvements_) {
      csv << core::csv_field(configs_[i.x].label) << ',' << core::csv_field(configs_[i.y].label)
          << ',' << number(i.probability) << ',' << number(i.interval.low) << ','
          << number(i.interval.high) << '\n';
    }
    return csv.str();
  }

  std::string labels() const {
    std::string text;
    for (const ReportConfig& config : configs_) text += config.label + "\n";
    return text;
  }

  // Runs gnuplot on `script` and labels the image with the configs it shows.
  void draw(const fs::path& scratch, const std::string& name, const std::string& title,
            const std::string& script) const {
    const fs::path image = scratch / name;
    const fs::path script_file = scratch / (name + ".gp");
    write_file(script_file, "set terminal pngcairo size 900,550 noenhanced font 'sans,10'\n"
                            "set output " + gnuplot_quoted(image.string()) + "\n" + script);
    run_gnuplot(script_file.string());
    const std::string png = core::read_regular_file(image, 1ull << 30, "gnuplot's image");
    write_file(image, png_with_text(png_with_text(png, "Title", title), "Description",
                                    "configs:\n" + labels()));
    fs::remove(script_file);
  }

  bool draw_curves(const fs::path& scratch) const {
    std::ostringstream plot;
    std::int64_t last_step = 0;
    int drawn = 0;
    for (std::size_t c = 0; c < configs_.size(); ++c) {
      if (curves_[c].empty()) continue;
      const fs::path data = scratch / ("curve" + std::to_string(c) + ".dat");
      std::ostringstream rows;
      for (const CurveRow& row : curves_[c]) {
        rows << row.step << ' ' << row.iqm << ' ' << row.interval.low << ' ' << row.interval.high
             << '\n';
      }
      write_file(data, rows.str());
      last_step = std::max(last_step, curves_[c].back().step);
      const std::string color = " lc " + std::to_string(c + 1);
      plot << (drawn++ ? ", " : "plot ") << gnuplot_quoted(data.string())
           << " using 1:3:4 with filledcurves fs transparent solid 0.2 noborder" << color
           << " notitle, '' using 1:2 with "
           << (curves_[c].size() > 1 ? "lines lw 2" : "points pt 7 ps 1.5") << color
           << " title " << gnuplot_quoted(configs_[c].label);
    }
    if (drawn == 0) return false;
    draw(scratch, "learning_curves.png",
         "learning curves: IQM across runs of " + metric_ + ", " + percent() + " bootstrap CI",
         "set title " + gnuplot_quoted("IQM across runs, " + percent() + " bootstrap CI") +
             "\nset xlabel 'steps'\nset ylabel " + gnuplot_quoted(metric_) +
             "\nset grid\nset key bottom right\n" + step_ticks(last_step) + plot.str() + "\n");
    return true;
  }

  bool draw_final_scores(const fs::path& scratch) const {
    std::ostringstream aggregates, seeds, ticks;
    int drawn = 0;
    for (std::size_t c = 0; c < configs_.size(); ++c) {
      const FinalScores& f = finals_[c];
      ticks << (c ? ", " : "") << gnuplot_quoted(configs_[c].label) << ' ' << c + 1;
      if (f.scores.empty()) continue;
      ++drawn;
      aggregates << c + 1 << ' ' << f.iqm << ' ' << f.iqm_interval.low << ' '
                 << f.iqm_interval.high << ' ' << c + 1 << '\n';
      for (std::size_t r = 0; r < f.scores.size(); ++r) {
        // Spread sideways so that equal scores stay visible.
        const double offset = 0.25 * (static_cast<double>(r) + 0.5) / f.scores.size() - 0.125;
        seeds << c + 1 + 0.2 + offset << ' ' << f.scores[r] << ' ' << c + 1 << '\n';
      }
    }
    if (drawn == 0) return false;
    write_file(scratch / "aggregates.dat", aggregates.str());
    write_file(scratch / "seeds.dat", seeds.str());
    draw(scratch, "final_scores.png",
         "final scores: IQM with " + percent() + " bootstrap CI, and each run",
         "set title " + gnuplot_quoted("final evaluation: IQM with " + percent() +
                                       " bootstrap CI (bars), each run (dots)") +
             "\nset ylabel 'final mean return'\nset grid ytics\nset key off\nset xrange [0.5:" +
             std::to_string(configs_.size()) + ".5]\nset xtics (" + ticks.str() +
             ")\nplot " + gnuplot_quoted((scratch / "aggregates.dat").string()) +
             " using 1:2:3:4:5 with yerrorbars pt 7 ps 1.5 lw 2 lc variable, " +
             gnuplot_quoted((scratch / "seeds.dat").string()) +
             " using 1:2:3 with points pt 6 ps 1 lc variable\n");
    fs::remove(scratch / "aggregates.dat");
    fs::remove(scratch / "seeds.dat");
    return true;
  }

  bool draw_improvement(const fs::path& scratch) const {
    if (improvements_.empty()) return false;
    std::ostringstream rows, ticks;
    for (std::size_t i = 0; i < improvements_.size(); ++i) {
      const Improvement& imp = improvements_[i];
      rows << imp.probability << ' ' << i + 1 << ' ' << imp.interval.low << ' '
           << imp.interval.high << '\n';
      ticks << (i ? ", " : "")
            << gnuplot_quoted(configs_[imp.x].label + " > " + configs_[imp.y].label) << ' '
            << i + 1;
    }
    write_file(scratch / "improvement.dat", rows.str());
    draw(scratch, "improvement.png",
         "probability of improvement with " + percent() + " bootstrap CI",
         "set title " + gnuplot_quoted("P(X > Y): probability that a run of X scores above a "
                                       "run of Y, " + percent() + " bootstrap CI") +
             "\nset xrange [-0.02:1.02]\nset yrange [0.5:" + std::to_string(improvements_.size()) +
             ".5]\nset ytics (" + ticks.str() +
             ")\nset grid xtics\nset key off\nset arrow from 0.5, graph 0 to 0.5, graph 1 "
             "nohead dt 2\nplot " + gnuplot_quoted((scratch / "improvement.dat").string()) +
             " using 1:2:3:4 with xerrorbars pt 7 ps 1.5 lw 2 lc 1\n");
    fs::remove(scratch / "improvement.dat");
    return true;
  }

  std::string markdown(const std::vector<std::string>& files) const {
    std::ostringstream md;
    md << "# Report\n\n" << configs_.size() << " config" << (configs_.size() == 1 ? "" : "s")
       << "; curves of `" << metric_ << "`. Aggregates across runs (seeds): the interquartile "
       << "mean (IQM: the mean of the middle half, a quarter cut from each end) and the mean, "
       << "with " << percent() << " percentile bootstrap confidence intervals (" << args_.resamples
       << " resamples of the runs, seed " << args_.seed << "), as rliable reports them.\n\n";
    md << "## Final scores\n\nThe final evaluation's mean return of each run that finished "
          "(`summary.yaml`).\n\n";
    md << "| config | runs | IQM | IQM " << percent() << " CI | mean | mean " << percent()
       << " CI | median | each run (seed: score) |\n|---|---|---|---|---|---|---|---|\n";
    for (std::size_t c = 0; c < configs_.size(); ++c) {
      const FinalScores& f = finals_[c];
      md << "| " << cell(configs_[c].label) << " | " << f.scores.size() << " of "
         << configs_[c].runs.size() << " | ";
      if (f.scores.empty()) {
        md << "none finished | | | | | |\n";
        continue;
      }
      md << fixed(f.iqm) << " | [" << fixed(f.iqm_interval.low) << ", "
         << fixed(f.iqm_interval.high) << "] | " << fixed(f.mean) << " | ["
         << fixed(f.mean_interval.low) << ", " << fixed(f.mean_interval.high) << "] | "
         << fixed(f.median) << " | ";
      bool first = true;
      for (const ReportRun& run : configs_[c].runs) {
        if (!run.final_score) continue;
        md << (first ? "" : ", ") << run.seed << ": " << fixed(*run.final_score);
        first = false;
      }
      md << " |\n";
    }
    const auto has = [&](const std::string& file) {
      return std::find(files.begin(), files.end(), file) != files.end();
    };
    if (has("final_scores.png")) md << "\n![final scores](final_scores.png)\n";
    if (!improvements_.empty()) {
      md << "\n## Probability of improvement\n\nP(X > Y): the probability that a run of X has a "
            "higher final score than a run of Y (ties count half; 0.5: no difference), with its "
         << percent() << " bootstrap CI (each config's runs resampled).\n\n"
         << "| X | Y | P(X > Y) | " << percent() << " CI |\n|---|---|---|---|\n";
      for (const Improvement& i : improvements_) {
        md << "| " << cell(configs_[i.x].label) << " | " << cell(configs_[i.y].label) << " | "
           << fixed(i.probability) << " | [" << fixed(i.interval.low) << ", "
           << fixed(i.interval.high) << "] |\n";
      }
      if (has("improvement.png")) md << "\n![probability of improvement](improvement.png)\n";
    }
    md << "\n## Learning curves\n\nIQM across runs of `" << metric_ << "` with its " << percent()
       << " bootstrap band, on each config's common steps (up to where its shortest run has "
          "got).\n\n";
    if (has("learning_curves.png")) md << "![learning curves](learning_curves.png)\n\n";
    md << "Tables: `scores.csv` (per config), `runs.csv` (per run), `curves.csv` (per config and "
          "step)"
       << (improvements_.empty() ? "" : ", `improvement.csv`") << ".\n\n## Runs\n\n";
    for (const ReportConfig& config : configs_) {
      md << "- " << cell(config.label) << ":";
      for (const ReportRun& run : config.runs) md << " `" << run.dir.string() << "`";
      md << "\n";
    }
    return md.str();
  }

  const ReportArguments& args_;
  const std::string metric_;
  std::vector<ReportConfig> configs_;
  std::mt19937_64 random_;
  std::vector<FinalScores> finals_;
  std::vector<std::vector<CurveRow>> curves_;
  std::vector<Improvement> improvements_;
};

int report_command(const ReportArguments& args) {
  std::string metric = args.metric;
  std::vector<ReportConfig> configs;
  try {
    configs = read_report_configs(args.inputs, metric);
  } catch (const CurveError& e) {
    std::fprintf(stderr, "mnrl report: %s\n", e.what());
    return kExitUsage;
  }
  const fs::path output = args.output;
  std::error_code error;
  if (fs::exists(output, error) && !fs::is_directory(output, error)) {
    std::fprintf(stderr, "mnrl report: -o %s: exists and is not a directory\n", output.c_str());
    return kExitUsage;
  }
  core::install_stop_handlers();  // Ctrl-C ends gnuplot too, and the scratch files go
  try {
    Report report(args, metric, std::move(configs));
    report.compute();
    // Written whole beside the output, then each file moved into place.
    ScratchDirectory scratch;
    const std::vector<std::string> files = report.write(scratch.path);
    fs::create_directories(output);
    // What an earlier report there wrote and this one does not (one config now: no
    // improvement.csv) would tell of configs no longer compared.
    for (const char* optional :
         {"improvement.csv", "learning_curves.png", "final_scores.png", "improvement.png"}) {
      if (std::find(files.begin(), files.end(), optional) == files.end()) {
        std::error_code ignored;
        if (fs::is_regular_file(output / optional, ignored)) fs::remove(output / optional, ignored);
      }
    }
    for (const std::string& file : files) {
      core::write_file_atomically(output / file, core::read_regular_file(scratch.path / file,
                                                                         1ull << 30, file));
    }
    std::printf("wrote %s/report.md (", output.c_str());
    for (std::size_t i = 1; i < files.size(); ++i) {
      std::printf("%s%s", i > 1 ? ", " : "", files[i].c_str());
    }
    std::printf(")\n");
    return kExitOk;
  } catch (const std::exception& e) {
    if (core::stop_requested()) return 128 + core::stop_signal();
    std::fprintf(stderr, "mnrl report: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace

Command add_report_command(CLI::App& mnrl) {
  auto args = std::make_shared<ReportArguments>();
  CLI::App* report = mnrl.add_subcommand(
      "report", "Compare configs over their seeds: IQM learning curves and final scores with "
                "bootstrap CIs, probability of improvement (Markdown, CSV, PNG)");
  report
      ->add_option("inputs", args->inputs,
                   "Study directories (mnrl train --seeds) or run directories, each optionally "
                   "as LABEL=PATH; run directories of one config but for the seed form one")
      ->required();
  report->add_option("-o,--output", args->output, "Directory to write the report into")
      ->capture_default_str();
  report
      ->add_option("--metric", args->metric,
                   "Metric of the learning curves (auto: eval/mean_return where every run has "
                   "it, else charts/episodic_return)")
      ->capture_default_str();
  report->add_option("--resamples", args->resamples, "Bootstrap resamples")
      ->capture_default_str()
      ->check(in_range(100, 1000000));
  report->add_option("--confidence", args->confidence, "Confidence of the intervals")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.999));
  report->add_option("--seed", args->seed, "Seed of the bootstrap's resampling")
      ->capture_default_str();
  report->add_option("--points", args->points, "Most points of a learning curve")
      ->capture_default_str()
      ->check(in_range(2, 100000));
  return {report, [args] { return report_command(*args); }};
}

}  // namespace mnrl::apps
