#include "experiments/runs/run_info.h"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "core/crc32c.h"
#include "core/files.h"
#include "core/shell_words.h"
#include "core/yaml_writer.h"
#include "envs/plugin_loader.h"

namespace mnrl::experiments {
namespace {

// run_info.yaml grows by a few lines per resume.
constexpr std::uint64_t kMaxRunInfoBytes = 16 << 20;

void write_plugin(core::YamlWriter& out, const PluginRecord& plugin) {
  out.key("env_plugin").begin_map(/*flow=*/true);
  out.key("path").text(plugin.path).key("crc32c").text(plugin.crc32c).end_map();
}

std::string text_at(const YAML::Node& map, const char* key) {
  const YAML::Node value = map[key];
  return value && value.IsScalar() ? value.as<std::string>() : std::string();
}

void write_launch(core::YamlWriter& out, const LaunchRecord& launch) {
  if (launch.ranks > 0) out.key("ranks").integer(launch.ranks);
  if (!launch.launch.empty()) out.key("launch").text(launch.launch);
}

LaunchRecord launch_at(const YAML::Node& map) {
  LaunchRecord launch;
  const std::string ranks = text_at(map, "ranks");
  const auto [end, error] =
      std::from_chars(ranks.data(), ranks.data() + ranks.size(), launch.ranks);
  if (error != std::errc() || end != ranks.data() + ranks.size() || launch.ranks < 0) {
    launch.ranks = 0;
  }
  launch.launch = text_at(map, "launch");
  return launch;
}

// Whether `program` (a path) is an MPI launcher, which starts a host's ranks as its children.
bool is_mpi_launcher(const std::string& program) {
  const std::string name = std::filesystem::path(program).filename().string();
  for (const char* launcher : {"mpirun", "mpiexec", "orterun", "prterun"}) {
    if (name.rfind(launcher, 0) == 0) return true;
  }
  return false;
}

// The words of process `pid`'s command line; none where it cannot be read.
std::vector<std::string> command_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::vector<std::string> words;
  for (std::string word; std::getline(in, word, '\0');) words.push_back(word);
  return words;
}

std::optional<PluginRecord> plugin_at(const YAML::Node& map) {
  const YAML::Node plugin = map["env_plugin"];
  if (!plugin || !plugin.IsMap()) return std::nullopt;
  return PluginRecord{text_at(plugin, "path"), text_at(plugin, "crc32c")};
}

}  // namespace

bool RunInfo::trained_with(const PluginRecord& plugin) const {
  for (auto resume = resumed.rbegin(); resume != resumed.rend(); ++resume) {
    if (resume->env_plugin) return *resume->env_plugin == plugin;
  }
  return env_plugin && *env_plugin == plugin;
}

std::optional<PluginRecord> plugin_record(const std::string& path) {
  if (path.empty()) return std::nullopt;
  if (const auto loaded = envs::loaded_plugin_crc32c(path)) {
    return PluginRecord{path, core::crc32c_hex(*loaded)};
  }
  const auto digest = core::digest_file(path);
  return PluginRecord{path, digest ? core::crc32c_hex(digest->crc32c) : "unreadable"};
}

std::optional<std::string> plugin_change_warning(const RunInfo& info,
                                                 const std::optional<PluginRecord>& plugin) {
  if (!plugin || info.trained_with(*plugin)) return std::nullopt;
  return "the env plugin is not the one the run was trained with (run_info.yaml); now " +
         plugin->path + ", CRC-32C " + plugin->crc32c;
}

std::string describe_launch(const std::function<const char*(const char*)>& environment,
                            const std::vector<std::string>& parent_command) {
  if (!parent_command.empty() && is_mpi_launcher(parent_command.front())) {
    return core::shell_command_line(parent_command);
  }
  const auto variable = [&](const char* name) {
    const char* value = environment(name);
    return std::string(value ? value : "?");
  };
  if (environment("SLURM_STEP_ID")) {
    return "srun: Slurm job " + variable("SLURM_JOB_ID") + " step " + variable("SLURM_STEP_ID") +
           ", " + variable("SLURM_STEP_NUM_TASKS") + " tasks on " +
           variable("SLURM_STEP_NUM_NODES") + " nodes";
  }
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (environment(name)) {
      return "an MPI launcher (" + std::string(name) + "=" + variable(name) + ")";
    }
  }
  return "";
}

std::string this_launch() {
  return describe_launch([](const char* name) { return std::getenv(name); }, command_of(getppid()));
}

std::string run_info_yaml(const RunInfo& info) {
  core::YamlWriter out;
  out.key("command").text(info.command);
  write_launch(out, info.launch);
  out.key("mnrl_version").text(info.mnrl_version);
  out.key("source_revision").text(info.source_revision);
  out.key("blas").text(info.blas);
  out.key("physics").text(info.physics);
  out.key("started").text(info.started);
  if (info.env_plugin) write_plugin(out, *info.env_plugin);
  if (!info.resumed.empty()) {
    out.key("resumed").begin_list();
    for (const ResumeRecord& resume : info.resumed) {
      out.begin_map();
      out.key("command").text(resume.command);
      write_launch(out, resume.launch);
      out.key("from_checkpoint").text(resume.from_checkpoint);
      out.key("started").text(resume.started);
      if (resume.env_plugin) write_plugin(out, *resume.env_plugin);
      if (!resume.config_changes.empty()) {
        out.key("config_changes").begin_map();
        for (const core::ConfigChange& change : resume.config_changes) {
          out.quoted_key(change.key).begin_map(/*flow=*/true);
          out.key("before").text(change.before).key("after").text(change.after).end_map();
        }
        out.end_map();
      }
      out.end_map();
    }
    out.end_list();
  }
  return out.str();
}

RunInfo parse_run_info(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(source + ": not YAML (" + e.msg + ")");
  }
  if (!root.IsMap()) throw std::runtime_error(source + ": not a map of run information");
  RunInfo info;
  info.command = text_at(root, "command");
  info.launch = launch_at(root);
  info.mnrl_version = text_at(root, "mnrl_version");
  info.source_revision = text_at(root, "source_revision");
  info.blas = text_at(root, "blas");
  info.physics = text_at(root, "physics");
  info.started = text_at(root, "started");
  info.env_plugin = plugin_at(root);
  const YAML::Node resumed = root["resumed"];
  if (resumed && resumed.IsSequence()) {
    for (const YAML::Node& entry : resumed) {
      if (!entry.IsMap()) throw std::runtime_error(source + ": a `resumed` entry is not a map");
      ResumeRecord resume;
      resume.command = text_at(entry, "command");
      resume.launch = launch_at(entry);
      resume.from_checkpoint = text_at(entry, "from_checkpoint");
      resume.started = text_at(entry, "started");
      resume.env_plugin = plugin_at(entry);
      const YAML::Node changes = entry["config_changes"];
      if (changes && changes.IsMap()) {
        for (const auto& change : changes) {
          resume.config_changes.push_back({change.first.as<std::string>(),
                                           text_at(change.second, "before"),
                                           text_at(change.second, "after")});
        }
      }
      info.resumed.push_back(std::move(resume));
    }
  }
  return info;
}

RunInfo read_run_info(const std::filesystem::path& run_dir) {
  const std::filesystem::path path = run_dir / "run_info.yaml";
  return parse_run_info(core::read_regular_file(path, kMaxRunInfoBytes, "run information"),
                        path.string());
}

}  // namespace mnrl::experiments
