#include "experiments/rank_agreement.h"

#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "core/build_info.h"
#include "core/config.h"
#include "core/crc32c.h"
#include "core/text.h"
#include "distributed/byte_exchange.h"
#include "distributed/communicator.h"
#include "envs/registry.h"

namespace mnrl::experiments {
namespace {

// What must be equal on every rank, one "key: value" per line: the resolved config as
// config.yaml holds it, then the program and the env's plugin.
std::string agreement_text(const ExperimentOptions& options) {
  ExperimentOptions resolved = options;
  std::string text = core::to_yaml([&](core::ConfigVisitor& v) { resolved.visit(v); });
  text += "\nmnrl: " + std::string(core::version()) + " (" + core::source_revision() + ")\n";
  const std::string& plugin = envs::Registry::global().origin(options.env.id);
  if (!plugin.empty()) {
    const auto digest = core::digest_file(plugin);
    char crc[16];
    std::snprintf(crc, sizeof crc, "%08" PRIx32, digest ? digest->crc32c : 0u);
    text += "env plugin: " + std::string(digest ? crc : "unreadable") + "\n";
  }
  return text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

std::size_t indent_of(const std::string& line) {
  const auto first = line.find_first_not_of(' ');
  return first == std::string::npos ? 0 : first;
}

std::string key_of(const std::string& line) {
  const auto first = line.find_first_not_of(" -");
  if (first == std::string::npos) return "";
  return line.substr(first, line.find(':', first) - first);
}

// The dotted key path of lines[index] in block-style YAML: its key, prefixed by the key of
// each less indented line above it.
std::string key_path(const std::vector<std::string>& lines, std::size_t index) {
  std::string path = key_of(lines[index]);
  std::size_t level = indent_of(lines[index]);
  for (std::size_t i = index; i-- > 0 && level > 0;) {
    if (indent_of(lines[i]) < level && !key_of(lines[i]).empty()) {
      path = key_of(lines[i]) + "." + path;
      level = indent_of(lines[i]);
    }
  }
  return path;
}

std::string value_of(const std::string& line) {
  const auto colon = line.find(':');
  if (colon == std::string::npos) return line;
  const auto value = line.find_first_not_of(' ', colon + 1);
  return value == std::string::npos ? "" : line.substr(value);
}

}  // namespace

void check_ranks_agree(distributed::Communicator& communicator, const ExperimentOptions& options) {
  if (communicator.size() < 2) return;
  const std::vector<std::string> texts =
      distributed::all_gather_bytes(communicator, agreement_text(options));
  std::vector<std::string> differing;
  std::string first_difference;
  const std::vector<std::string> reference = lines_of(texts[0]);
  for (std::size_t rank = 1; rank < texts.size(); ++rank) {
    if (texts[rank] == texts[0]) continue;
    differing.push_back(std::to_string(rank));
    if (!first_difference.empty()) continue;
    const std::vector<std::string> other = lines_of(texts[rank]);
    std::size_t line = 0;
    while (line < reference.size() && line < other.size() && reference[line] == other[line]) ++line;
    const std::string mine = line < reference.size() ? reference[line] : "";
    const std::string theirs = line < other.size() ? other[line] : "";
    const std::string key = key_path(line < reference.size() ? reference : other, line);
    first_difference = "first difference: '" + key + "', rank 0 has '" + value_of(mine) +
                       "', rank " + std::to_string(rank) + " has '" + value_of(theirs) + "'";
  }
  if (differing.empty()) return;
  throw RanksDisagree("rank(s) " + core::join(differing) + " do not run the same experiment as "
                      "rank 0 (" + first_difference + "); every rank must run the same config, "
                      "env plugin and mnrl");
}

}  // namespace mnrl::experiments
