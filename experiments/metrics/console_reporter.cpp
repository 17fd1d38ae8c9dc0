#include "experiments/metrics/console_reporter.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace mnrl::experiments {
namespace {

constexpr std::size_t kReturnWindow = 100;
constexpr double kRedrawSeconds = 0.1;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds)) return "?";
  if (seconds < 60) return format("%.1fs", seconds);
  if (seconds < 3600) return format("%.0fm", std::floor(seconds / 60)) + format("%02.0fs", std::fmod(seconds, 60));
  return format("%.0fh", std::floor(seconds / 3600)) + format("%02.0fm", std::fmod(seconds / 60, 60));
}

ProgressMode resolve(ProgressMode mode, std::FILE* out) {
  if (mode != ProgressMode::kAuto) return mode;
  return isatty(fileno(out)) != 0 ? ProgressMode::kLive : ProgressMode::kLines;
}

}  // namespace

ConsoleReporter::ConsoleReporter(std::FILE* out, std::int64_t total_steps,
                                 std::int64_t log_interval, std::int64_t first_step,
                                 ProgressMode mode, Clock clock)
    : out_(out),
      mode_(resolve(mode, out)),
      total_steps_(total_steps),
      first_step_(first_step),
      log_interval_(log_interval > 0 ? log_interval : std::max<std::int64_t>(1, total_steps / 10)),
      next_log_step_((first_step / log_interval_ + 1) * log_interval_),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)),
      start_seconds_(clock_()) {}

void ConsoleReporter::scalar(std::int64_t step, const std::string& name, double value) {
  if (name == "charts/episodic_return") {
    recent_returns_.push_back(value);
    if (recent_returns_.size() > kReturnWindow) recent_returns_.pop_front();
    return;
  }
  if (name == "eval/mean_return") eval_step_ = step;
  latest_[name] = value;
}

void ConsoleReporter::progress(std::int64_t step) {
  if (mode_ == ProgressMode::kLive) {
    const double now = clock_();
    if (now - last_draw_seconds_ < kRedrawSeconds) return;
    last_draw_seconds_ = now;
    print(step);
  } else if (mode_ == ProgressMode::kLines && step >= next_log_step_) {
    next_log_step_ = (step / log_interval_ + 1) * log_interval_;
    print(step);
  }
}

void ConsoleReporter::flush() {
  if (line_open_) std::fputc('\n', out_);
  line_open_ = false;
  std::fflush(out_);
}

std::string ConsoleReporter::line(std::int64_t step) const {
  const double done = std::min(1.0, static_cast<double>(step) / static_cast<double>(total_steps_));
  std::string s = format("[%5.1f%%] ", 100.0 * done) + "step " + std::to_string(step) + "/" +
                  std::to_string(total_steps_);
  const double elapsed = clock_() - start_seconds_;
  const double sps = static_cast<double>(step - first_step_) / elapsed;
  const bool rate_known = elapsed >= kRateSeconds && sps > 0;
  if (rate_known) s += " | " + format("%.0f SPS", sps);
  if (!recent_returns_.empty()) {
    const double mean = std::accumulate(recent_returns_.begin(), recent_returns_.end(), 0.0) /
                        static_cast<double>(recent_returns_.size());
    s += " | return " + format("%.1f", mean) + " (" + std::to_string(recent_returns_.size()) +
         " ep)";
  }
  const std::string shown_losses = losses();
  if (!shown_losses.empty()) s += " |" + shown_losses;  // none before the first update
  const auto eval = latest_.find("eval/mean_return");
  if (eval != latest_.end()) {
    s += " | eval " + format("%.1f", eval->second) + " ± " +
         format("%.1f", latest_.at("eval/std_return")) + " @" + std::to_string(eval_step_);
  }
  if (rate_known) {
    s += " | ETA " + format_duration(std::max(0.0, static_cast<double>(total_steps_ - step) / sps));
  }
  return s;
}

// The latest value of each loss the algorithm reports: PPO, A2C, A3C and IMPALA's policy,
// value and entropy terms, the DQN family's TD loss, SAC, TD3 and DDPG's critic and actor
// losses (DDPG's one critic has no losses/qf_loss).
std::string ConsoleReporter::losses() const {
  static const struct {
    const char* label;
    const char* name;
    const char* or_else;  // shown when `name` is not reported
  } kShown[] = {
      {"pg", "losses/policy_loss", nullptr},       {"v", "losses/value_loss", nullptr},
      {"ent", "losses/entropy", nullptr},          {"td", "losses/td_loss", nullptr},
      {"qf", "losses/qf_loss", "losses/qf1_loss"}, {"actor", "losses/actor_loss", nullptr}};
  std::string s;
  for (const auto& shown : kShown) {
    auto it = latest_.find(shown.name);
    if (it == latest_.end() && shown.or_else) it = latest_.find(shown.or_else);
    if (it != latest_.end()) s += std::string(" ") + shown.label + " " + format("%.3g", it->second);
  }
  return s;
}

void ConsoleReporter::print(std::int64_t step) {
  const std::string text = line(step);
  if (mode_ == ProgressMode::kLive) {
    std::fprintf(out_, "\r%s\x1b[K", text.c_str());
    line_open_ = true;
  } else {
    std::fprintf(out_, "%s\n", text.c_str());
  }
  // A closed stdout (`mnrl train ... | head -1`) ends the progress output, never the run.
  if (std::fflush(out_) != 0) {
    mode_ = ProgressMode::kNone;
    line_open_ = false;
  }
}

}  // namespace mnrl::experiments
