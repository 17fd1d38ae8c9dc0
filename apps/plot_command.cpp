#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "apps/commands.h"
#include "apps/learning_curve.h"

namespace mnrl::apps {
namespace {
namespace fs = std::filesystem;

// A gnuplot single-quoted string ('' stands for ').
std::string gnuplot_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// The run directory's own name, for the legend.
std::string run_label(const std::string& run_dir) {
  fs::path path = fs::path(run_dir).lexically_normal();
  if (path.filename().empty()) path = path.parent_path();
  return path.filename().empty() ? run_dir : path.filename().string();
}

// A temporary directory removed when this goes out of scope.
struct ScratchDirectory {
  fs::path path;
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "mnrl-plot-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory");
    path = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

}  // namespace

int plot_command(const PlotArguments& args) {
  std::vector<Curve> curves;
  try {
    for (const auto& run : args.run_dirs) curves.push_back(read_curve(run, args.metric));
  } catch (const CurveError& e) {
    std::fprintf(stderr, "mnrl plot: %s\n", e.what());
    return kExitUsage;
  }
  try {
    ScratchDirectory scratch;
    // gnuplot writes next to the output under a temporary name, renamed when complete.
    const fs::path output = fs::absolute(args.output);
    const fs::path partial = output.string() + ".partial";
    std::ofstream script(scratch.path / "plot.gp");
    script << "set terminal pngcairo size " << args.width << "," << args.height
           << " noenhanced font 'sans,10'\n"
           << "set output " << gnuplot_quoted(partial.string()) << "\n"
           << "set xlabel 'steps'\nset ylabel " << gnuplot_quoted(args.metric) << "\n"
           << "set grid\nset key bottom right\nset format x '%.0s%c'\n"
           << "plot ";
    for (std::size_t i = 0; i < curves.size(); ++i) {
      const int window = args.smoothing > 0
                             ? args.smoothing
                             : std::max(1, static_cast<int>(curves[i].size() / 20));
      const fs::path data = scratch.path / ("run" + std::to_string(i) + ".dat");
      std::ofstream out(data);
      for (const auto& [step, value] : smoothed(curves[i], window)) out << step << ' ' << value << '\n';
      script << (i ? ", " : "") << gnuplot_quoted(data.string())
             << " using 1:2 with lines lw 2 title " << gnuplot_quoted(run_label(args.run_dirs[i]));
    }
    script << "\n";
    script.close();
    run_gnuplot((scratch.path / "plot.gp").string());
    fs::rename(partial, output);
    std::printf("wrote %s (%s of %zu run%s, %dx%d)\n", args.output.c_str(), args.metric.c_str(),
                curves.size(), curves.size() == 1 ? "" : "s", args.width, args.height);
    return kExitOk;
  } catch (const std::exception& e) {
    std::error_code ignored;
    fs::remove(fs::absolute(args.output).string() + ".partial", ignored);
    std::fprintf(stderr, "mnrl plot: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace mnrl::apps
