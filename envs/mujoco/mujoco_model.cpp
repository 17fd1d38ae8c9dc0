#include "envs/mujoco/mujoco_model.h"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace mnrl::envs {
namespace {

MujocoModelPtr checked(mjModel* model, const char* error, const std::string& name) {
  if (model == nullptr) {
    throw MujocoModelError(
        name + ": MuJoCo cannot load this model: " +
        (error[0] != '\0' ? std::string(error) : std::string("no reason given")));
  }
  return MujocoModelPtr(model);
}

}  // namespace

MujocoModelPtr load_mujoco_model(const std::string& path) {
  // MuJoCo's own message for a missing file is terse; say it in full. Only a regular file: a
  // FIFO would block the open (and MuJoCo's read) until someone writes to it.
  std::error_code ignored;
  if (std::filesystem::exists(path, ignored) && !std::filesystem::is_regular_file(path, ignored)) {
    throw MujocoModelError(path + ": the MJCF model is not a regular file");
  }
  if (!std::ifstream(path).good()) {
    throw MujocoModelError(path + ": cannot open the MJCF model file (missing or unreadable)");
  }
  char error[1024] = "";
  return checked(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)), error, path);
}

MujocoModelPtr load_mujoco_model_text(const std::string& xml, const std::string& name) {
  // mjVFS holds 2000 file slots (about 2 MB): on the heap.
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  if (mj_makeEmptyFileVFS(vfs.get(), name.c_str(), static_cast<int>(xml.size())) != 0) {
    throw MujocoModelError(name + ": cannot hold the model in MuJoCo's virtual file system");
  }
  const int file = mj_findFileVFS(vfs.get(), name.c_str());
  std::memcpy(vfs->filedata[file], xml.data(), xml.size());
  char error[1024] = "";
  mjModel* model = mj_loadXML(name.c_str(), vfs.get(), error, sizeof(error));
  mj_deleteVFS(vfs.get());
  return checked(model, error, name);
}

}  // namespace mnrl::envs
