#include "experiments/config/rank_agreement.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/crc32c.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;

std::string crc_of(const fs::path& file) {
  return core::crc32c_hex(core::digest_file(file)->crc32c);
}

// The ranks compare the plugin as each loaded it, not the file as it is when they compare: one
// replaced between two ranks' loads is a difference. And they compare the files the env reads.
TEST(RankAgreementTest, ComparesThePluginAsLoadedAndTheEnvsDataFiles) {
  const fs::path dir =
      fs::temp_directory_path() / ("mnrl_rank_agreement_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(MNRL_TEST_PLUGIN_DIR "/libdata_file.so", dir / "libdata_file.so");
  std::ofstream(dir / "length.txt") << "3\n";
  const std::string loaded_crc = crc_of(dir / "libdata_file.so");
  const ExperimentOptions options =
      parse_experiment("env: {id: FileWalk-v0, plugin: " + (dir / "libdata_file.so").string() +
                           ", kwargs: {length_file: " + (dir / "length.txt").string() + "}}\n",
                       "agreement.yaml", {});
  const std::string agreed = agreement_text(options);
  EXPECT_NE(agreed.find("env_plugin_crc32c: " + loaded_crc), std::string::npos) << agreed;
  EXPECT_NE(agreed.find("env_files_crc32c:\n  \"" + (dir / "length.txt").string() +
                        "\": " + crc_of(dir / "length.txt")),
            std::string::npos)
      << agreed;

  std::ofstream(dir / "libdata_file.so", std::ios::app) << "rebuilt";
  EXPECT_EQ(agreement_text(options), agreed) << "the plugin's bytes as loaded are compared";
  std::ofstream(dir / "length.txt") << "4\n";
  EXPECT_NE(agreement_text(options).find(crc_of(dir / "length.txt")), std::string::npos)
      << "the env's data file is compared as it is";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mnrl::experiments
