#include "experiments/config/rank_agreement.h"

#include <string>
#include <vector>

#include "core/build_info.h"
#include "core/config.h"
#include "core/config_diff.h"
#include "core/crc32c.h"
#include "core/text.h"
#include "distributed/byte_exchange.h"
#include "distributed/communicator.h"
#include "envs/plugin_loader.h"
#include "envs/registry.h"
#include "experiments/config/config_paths.h"

namespace mnrl::experiments {
namespace {

std::string crc_text(const std::optional<std::uint32_t>& crc) {
  return crc ? core::crc32c_hex(*crc) : "unreadable";
}

std::optional<std::uint32_t> file_crc(const std::string& path) {
  const auto digest = core::digest_file(path);
  return digest ? std::optional<std::uint32_t>(digest->crc32c) : std::nullopt;
}

}  // namespace

std::string agreement_text(const ExperimentOptions& options, std::int64_t resume_step) {
  std::string text = resolved_config_yaml(options);
  text += "\nmnrl_program: " +
          core::yaml_quoted(std::string(core::version()) + " (" + core::source_revision() + ")") +
          "\n";
  if (resume_step >= 0) text += "resume_from_step: " + std::to_string(resume_step) + "\n";
  // The plugin's bytes as this rank loaded them, not as the file is now.
  const std::string& plugin = envs::Registry::global().origin(options.env.id);
  if (!plugin.empty()) {
    text += "env_plugin_crc32c: " + crc_text(envs::loaded_plugin_crc32c(plugin)) + "\n";
  }
  const std::vector<std::string> files = env_data_files(options.env);
  if (!files.empty()) text += "env_files_crc32c:\n";
  for (const std::string& file : files) {
    text += "  " + core::yaml_quoted(file) + ": " + crc_text(file_crc(file)) + "\n";
  }
  return text;
}

void check_ranks_agree(distributed::Communicator& communicator, const ExperimentOptions& options,
                       std::int64_t resume_step) {
  if (communicator.size() < 2) return;
  const std::vector<std::string> texts =
      distributed::all_gather_bytes(communicator, agreement_text(options, resume_step));
  std::vector<std::string> differing;
  std::string first_difference;
  for (std::size_t rank = 1; rank < texts.size(); ++rank) {
    if (texts[rank] == texts[0]) continue;
    differing.push_back(std::to_string(rank));
    const std::vector<core::ConfigChange> changes = core::config_changes(texts[0], texts[rank]);
    if (first_difference.empty() && !changes.empty()) {
      first_difference = "first difference: '" + changes.front().key + "', rank 0 has '" +
                         changes.front().before + "', rank " + std::to_string(rank) + " has '" +
                         changes.front().after + "'";
    }
  }
  if (differing.empty()) return;
  throw RanksDisagree("rank(s) " + core::join(differing) +
                      " do not run the same experiment as "
                      "rank 0 (" +
                      (first_difference.empty() ? "their configs differ" : first_difference) +
                      "); every rank must run the same config, env plugin and mnrl");
}

}  // namespace mnrl::experiments
