#pragma once

#include <mujoco/mujoco.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace mnrl::envs {

// An MJCF model that cannot be used: missing or malformed file (MuJoCo's parser message, with
// its line, is part of the text), or a model an env cannot drive (no actuators). The message
// starts with the file's path (or the built-in model's name).
class MujocoModelError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct MujocoModelDeleter {
  void operator()(mjModel* model) const { mj_deleteModel(model); }
};
struct MujocoDataDeleter {
  void operator()(mjData* data) const { mj_deleteData(data); }
};
using MujocoModelPtr = std::unique_ptr<mjModel, MujocoModelDeleter>;
using MujocoDataPtr = std::unique_ptr<mjData, MujocoDataDeleter>;

// Loads the MJCF file at `path` (its includes and meshes relative to it, as MuJoCo resolves
// them). Throws MujocoModelError.
MujocoModelPtr load_mujoco_model(const std::string& path);
// Loads an MJCF document held in memory; `name` names it in messages ("inverted_pendulum.xml").
// The document cannot include other files. Throws MujocoModelError.
MujocoModelPtr load_mujoco_model_text(const std::string& xml, const std::string& name);

}  // namespace mnrl::envs
