// A test plugin whose env reads a data file named in its kwargs, as a MuJoCo robot reads its
// model: FileWalk-v0 is Walk-v0 of tests/plugins/walk_plugin.cpp on [0, length], with `length`
// read from the text file `length_file` (kwarg, required).
#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "envs/plugin.h"

namespace {

using mnrl::core::Kwargs;
using namespace mnrl::envs;

int length_in(const Kwargs& kwargs) {
  if (!kwargs.contains("length_file")) throw kwargs.error("length_file", "is required");
  const std::string path = kwargs.get<std::string>("length_file");
  std::ifstream file(path);
  int length = 0;
  if (!(file >> length))
    throw kwargs.error("length_file", "cannot read a length from '" + path + "'");
  if (length < 1) throw kwargs.error("length_file", "'" + path + "' holds a length below 1");
  return length;
}

class FileWalk final : public Env {
 public:
  explicit FileWalk(const Kwargs& kwargs) : length_(length_in(kwargs)) {
    spec_.id = "FileWalk-v0";
    spec_.observation_space = Box{{1}, {0.0f}, {static_cast<float>(length_)}};
    spec_.action_space = Discrete{2};
    spec_.max_episode_steps = 50;
  }
  const EnvSpec& spec() const override { return spec_; }
  void reset(mnrl::core::TypedPtr out, std::optional<std::uint64_t>) override {
    position_ = 0;
    out.floats()[0] = 0.0f;
  }
  StepResult step(const ActionRef& action, mnrl::core::TypedPtr out) override {
    position_ = action.index == 1 ? position_ + 1 : (position_ > 0 ? position_ - 1 : 0);
    out.floats()[0] = static_cast<float>(position_);
    const bool arrived = position_ == length_;
    return {arrived ? 1.0 : 0.0, arrived, false};
  }

 private:
  EnvSpec spec_;
  int length_;
  int position_ = 0;
};

}  // namespace

MNRL_PLUGIN(registry) { registry.add<FileWalk>("FileWalk-v0"); }
