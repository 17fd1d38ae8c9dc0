// A well-behaved test plugin with envs that misbehave on request, as users' envs do:
//  - Walk-v0: a random walk on [0, length]: action 0 steps left, 1 right; terminated at
//    `length`, reward `reward` there (default 1) and 0 elsewhere. Kwargs: length (int, default
//    5), start (int), reward (double: 1e30 makes any value loss overflow).
//  - Throwing-v0: fails in `in` (reset|step), on the `after`-th call of it (default 1); with
//    `on_rank` R, only in rank R of an mpirun job. How, by `how`: throw (std::runtime_error
//    "sensor unplugged", the default), spin (loops forever), segfault, abort, exit (exit(0))
//    or quick_exit (quick_exit(0)).
//  - OutOfSpace-v0: declares observations in [0, 1] and writes 7.5 at step `at_step`.
//  - Hostile-v0: Walk-v0 (and its kwargs) doing what a plugin must not do to its process.
//    Kwargs: `constructor`, `reset` (the first one) and `destructor`, what each does besides:
//    exit (exit(0)), segfault, take_stop_signals (ignores SIGINT and SIGTERM from then on),
//    chdir (to `to`), fork (the child returns too) or exit_from_thread (a thread calls exit(0)
//    `after_ms` milliseconds later, default 500); nothing by default.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "envs/plugin.h"

namespace {

using mnrl::core::Kwargs;
using namespace mnrl::envs;

EnvSpec walk_spec(const std::string& id, float high) {
  EnvSpec spec;
  spec.id = id;
  spec.observation_space = Box{{1}, {0.0f}, {high}};
  spec.action_space = Discrete{2};
  spec.max_episode_steps = 50;
  return spec;
}

class Walk final : public Env {
 public:
  explicit Walk(const Kwargs& kwargs)
      : length_(kwargs.get<int>("length", 5)),
        start_(kwargs.get<int>("start", 0)),
        reward_(kwargs.get<double>("reward", 1.0)) {
    if (length_ < 1) throw kwargs.error("length", "must be at least 1");
    spec_ = walk_spec("Walk-v0", static_cast<float>(length_));
  }
  const EnvSpec& spec() const override { return spec_; }
  void reset(mnrl::core::TypedPtr out, std::optional<std::uint64_t>) override {
    float* observation = out.floats();
    position_ = start_;
    running_ = true;
    observation[0] = static_cast<float>(position_);
  }
  StepResult step(const ActionRef& action, mnrl::core::TypedPtr out) override {
    float* observation = out.floats();
    if (!running_) throw std::logic_error("step() needs reset() first");
    if (action.index < 0 || action.index > 1) throw std::invalid_argument("action not in {0, 1}");
    position_ = action.index == 1 ? position_ + 1 : (position_ > 0 ? position_ - 1 : 0);
    observation[0] = static_cast<float>(position_);
    const bool arrived = position_ == length_;
    running_ = !arrived;
    return {arrived ? reward_ : 0.0, arrived, false};
  }

 private:
  EnvSpec spec_;
  int length_;
  int start_;
  double reward_;
  int position_ = 0;
  bool running_ = false;
};

class Throwing final : public Env {
 public:
  explicit Throwing(const Kwargs& kwargs)
      : in_(kwargs.get<std::string>("in", "step")),
        how_(kwargs.get<std::string>("how", "throw")),
        after_(kwargs.get<int>("after", 1)),
        spec_(walk_spec("Throwing-v0", 1.0f)) {
    const int on_rank = kwargs.get<int>("on_rank", -1);
    const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
    armed_ = on_rank < 0 || (rank && std::atoi(rank) == on_rank);
    if (in_ != "reset" && in_ != "step") throw kwargs.error("in", "must be reset or step");
  }
  const EnvSpec& spec() const override { return spec_; }
  void reset(mnrl::core::TypedPtr out, std::optional<std::uint64_t>) override {
    float* observation = out.floats();
    maybe_throw("reset");
    observation[0] = 0.0f;
  }
  StepResult step(const ActionRef& action, mnrl::core::TypedPtr out) override {
    float* observation = out.floats();
    if (action.index < 0 || action.index > 1) throw std::invalid_argument("action not in {0, 1}");
    maybe_throw("step");
    observation[0] = 0.0f;
    return {0.0, false, false};
  }

 private:
  void maybe_throw(const std::string& call) {
    if (!armed_ || call != in_ || ++calls_ < after_) return;
    if (how_ == "spin") {
      for (volatile unsigned long spins = 0;; spins = spins + 1) {
      }
    }
    if (how_ == "segfault") std::raise(SIGSEGV);
    if (how_ == "abort") std::abort();
    if (how_ == "exit") std::exit(0);
    if (how_ == "quick_exit") std::quick_exit(0);
    throw std::runtime_error("sensor unplugged");
  }
  bool armed_;
  std::string in_;
  std::string how_;
  int after_;
  int calls_ = 0;
  EnvSpec spec_;
};

class OutOfSpace final : public Env {
 public:
  explicit OutOfSpace(const Kwargs& kwargs)
      : at_step_(kwargs.get<int>("at_step", 3)), spec_(walk_spec("OutOfSpace-v0", 1.0f)) {}
  const EnvSpec& spec() const override { return spec_; }
  void reset(mnrl::core::TypedPtr out, std::optional<std::uint64_t>) override {
    float* observation = out.floats();
    steps_ = 0;
    observation[0] = 0.0f;
  }
  StepResult step(const ActionRef&, mnrl::core::TypedPtr out) override {
    float* observation = out.floats();
    observation[0] = ++steps_ == at_step_ ? 7.5f : 0.5f;
    return {0.0, false, false};
  }

 private:
  int at_step_;
  int steps_ = 0;
  EnvSpec spec_;
};

class Hostile final : public Env {
 public:
  explicit Hostile(const Kwargs& kwargs)
      : walk_(kwargs),
        in_reset_(kwargs.get<std::string>("reset", "")),
        in_destructor_(kwargs.get<std::string>("destructor", "")),
        to_(kwargs.get<std::string>("to", "/")),
        after_ms_(kwargs.get<int>("after_ms", 500)) {
    spec_ = walk_.spec();
    spec_.id = "Hostile-v0";
    act(kwargs.get<std::string>("constructor", ""));
  }
  ~Hostile() override { act(in_destructor_); }
  const EnvSpec& spec() const override { return spec_; }
  void reset(mnrl::core::TypedPtr out, std::optional<std::uint64_t> seed) override {
    act(std::exchange(in_reset_, ""));
    walk_.reset(out, seed);
  }
  StepResult step(const ActionRef& action, mnrl::core::TypedPtr out) override {
    return walk_.step(action, out);
  }

 private:
  void act(const std::string& what) const {
    if (what == "exit") std::exit(0);
    if (what == "segfault") std::raise(SIGSEGV);
    if (what == "take_stop_signals") {
      std::signal(SIGINT, SIG_IGN);
      std::signal(SIGTERM, SIG_IGN);
    }
    if (what == "chdir" && chdir(to_.c_str()) != 0) throw std::runtime_error("chdir failed");
    if (what == "fork" && fork() < 0) throw std::runtime_error("fork failed");
    if (what == "exit_from_thread") {
      std::thread([after = after_ms_] {
        std::this_thread::sleep_for(std::chrono::milliseconds(after));
        std::exit(0);
      }).detach();
    }
  }
  Walk walk_;
  EnvSpec spec_;
  std::string in_reset_;
  std::string in_destructor_;
  std::string to_;
  int after_ms_;
};

}  // namespace

MNRL_PLUGIN(registry) {
  registry.add<Walk>("Walk-v0");
  registry.add<Throwing>("Throwing-v0");
  registry.add<OutOfSpace>("OutOfSpace-v0");
  registry.add<Hostile>("Hostile-v0");
}
