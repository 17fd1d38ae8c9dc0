#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "apps/cli.h"
#include "apps/commands.h"
#include "apps/gnuplot.h"
#include "apps/learning_curve.h"
#include "core/files.h"
#include "core/stop_signal.h"

namespace mnrl::apps {
namespace {
namespace fs = std::filesystem;

// The run directory's own name, for the legend.
std::string run_label(const std::string& run_dir) {
  fs::path path = fs::path(run_dir).lexically_normal();
  if (path.filename().empty()) path = path.parent_path();
  return path.filename().empty() ? run_dir : path.filename().string();
}

}  // namespace

int plot_command(const PlotArguments& args) {
  std::vector<Curve> curves;
  try {
    for (const auto& run : args.run_dirs) curves.push_back(read_curve(run, args.metric));
  } catch (const CurveError& e) {
    std::fprintf(stderr, "mnrl plot: %s\n", e.what());
    return kExitUsage;
  }
  if (args.output.empty()) {
    std::fprintf(stderr, "mnrl plot: -o: give the PNG file to write\n");
    return kExitUsage;
  }
  try {
    core::check_replaceable(args.output);
  } catch (const core::FileError& e) {
    std::fprintf(stderr, "mnrl plot: -o: %s\n", e.what());
    return kExitUsage;
  }
  // Ctrl-C or SIGTERM ends gnuplot too, and the scratch directory is removed.
  core::install_stop_handlers();
  try {
    // gnuplot sees no path or text of the user's but the quoted labels: it writes into a
    // scratch directory, and the image is then moved into place as any output file is.
    ScratchDirectory scratch;
    const fs::path image = scratch.path / "plot.png";
    std::int64_t last_step = 0;
    for (const auto& curve : curves) last_step = std::max(last_step, curve.back().first);
    std::ofstream script(scratch.path / "plot.gp");
    script << "set terminal pngcairo size " << args.width << "," << args.height
           << " noenhanced font 'sans,10'\n"
           << "set output " << gnuplot_quoted(image.string()) << "\n"
           << "set xlabel 'steps'\nset ylabel " << gnuplot_quoted(args.metric) << "\n"
           << "set grid\nset key bottom right\n"
           << step_ticks(last_step) << "plot ";
    for (std::size_t i = 0; i < curves.size(); ++i) {
      const int window = args.smoothing > 0
                             ? args.smoothing
                             : std::max(1, static_cast<int>(curves[i].size() / 20));
      const fs::path data = scratch.path / ("run" + std::to_string(i) + ".dat");
      std::ofstream out(data);
      for (const auto& [step, value] : smoothed(curves[i], window)) out << step << ' ' << value << '\n';
      // A line needs two points: a single one is drawn as a point.
      script << (i ? ", " : "") << gnuplot_quoted(data.string()) << " using 1:2 with "
             << (curves[i].size() > 1 ? "lines lw 2" : "points pt 7 ps 1.5") << " title "
             << gnuplot_quoted(run_label(args.run_dirs[i]));
    }
    script << "\n";
    script.close();
    run_gnuplot((scratch.path / "plot.gp").string());
    core::write_file_atomically(args.output,
                                core::read_regular_file(image, 1ull << 30, "gnuplot's image"));
    std::printf("wrote %s (%s of %zu run%s, %dx%d)\n", args.output.c_str(), args.metric.c_str(),
                curves.size(), curves.size() == 1 ? "" : "s", args.width, args.height);
    return kExitOk;
  } catch (const std::exception& e) {
    if (core::stop_requested()) return 128 + core::stop_signal();
    std::fprintf(stderr, "mnrl plot: %s\n", e.what());
    return kExitFailure;
  }
}

Command add_plot_command(CLI::App& mnrl) {
  auto args = std::make_shared<PlotArguments>();
  CLI::App* plot = mnrl.add_subcommand("plot", "Draw learning curves of runs into a PNG (gnuplot)");
  plot->add_option("run_dirs", args->run_dirs, "Run directories (one line each)")->required();
  plot->add_option("-o,--output", args->output, "PNG file to write")->capture_default_str();
  plot->add_option("--metric", args->metric, "Metric name in metrics.csv")->capture_default_str();
  plot->add_option("--width", args->width, "Image width in pixels")
      ->capture_default_str()
      ->check(in_range(100, 10000));
  plot->add_option("--height", args->height, "Image height in pixels")
      ->capture_default_str()
      ->check(in_range(100, 10000));
  plot->add_option("--smoothing", args->smoothing,
                   "Moving-average window in points (0: about a twentieth of the points)")
      ->capture_default_str()
      ->check(in_range(0));
  return {plot, [args] { return plot_command(*args); }};
}

}  // namespace mnrl::apps
