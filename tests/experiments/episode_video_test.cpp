// EpisodeVideo refuses what a plugin's render() may get wrong, and pictures no GIF can hold,
// before it writes a frame.
#include "experiments/evaluation/episode_video.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tests/error_of.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;
using test_util::error_of;

// Draws `width` x `height` pictures holding `bytes` bytes (a correct picture has width x height
// x 3); otherwise a one-step env.
class PainterEnv final : public envs::Env {
 public:
  PainterEnv(int width, int height, std::size_t bytes) : width_(width), height_(height), bytes_(bytes) {
    spec_.id = "Painter-v0";
    spec_.observation_space = envs::Box{{1}, {0.0f}, {1.0f}};
    spec_.action_space = envs::Discrete{2};
  }
  const envs::EnvSpec& spec() const override { return spec_; }
  void reset(core::TypedPtr observation, std::optional<std::uint64_t>) override {
    observation.floats()[0] = 0.0f;
  }
  envs::StepResult step(const envs::ActionRef&, core::TypedPtr observation) override {
    observation.floats()[0] = 0.0f;
    return {0.0, true, false};
  }
  bool render(envs::RgbImage& image) const override {
    image.width = width_;
    image.height = height_;
    image.pixels.assign(bytes_, 0);
    return true;
  }

 private:
  envs::EnvSpec spec_;
  int width_, height_;
  std::size_t bytes_;
};

std::unique_ptr<envs::VectorEnv> painters(int count, int width, int height, std::size_t bytes) {
  std::vector<std::unique_ptr<envs::Env>> envs;
  for (int i = 0; i < count; ++i) envs.push_back(std::make_unique<PainterEnv>(width, height, bytes));
  auto vector = std::make_unique<envs::VectorEnv>(std::move(envs), 0);
  vector->reset();
  return vector;
}

class EpisodeVideoTest : public ::testing::Test {
 protected:
  const fs::path path_ =
      fs::temp_directory_path() / ("mnrl_episode_video_test_" + std::to_string(::getpid()) + ".gif");
  void TearDown() override { fs::remove(path_); }
};

TEST_F(EpisodeVideoTest, APictureWhoseBytesDoNotMatchItsSizeIsRefusedNamingTheEnv) {
  for (const auto& [width, height, bytes] :
       std::vector<std::tuple<int, int, std::size_t>>{{4, 3, 5}, {4, 3, 37}, {0, 3, 0}}) {
    const auto envs = painters(1, width, height, bytes);
    const std::string error = error_of([&] {
      EpisodeVideo video(path_.string(), 25);
      video.capture(*envs, {false});
    });
    EXPECT_NE(error.find("'Painter-v0' render() drew a " + std::to_string(width) + "x" +
                         std::to_string(height) + " picture with " + std::to_string(bytes) +
                         " bytes"),
              std::string::npos)
        << error;
    EXPECT_FALSE(fs::exists(path_));
  }
}

TEST_F(EpisodeVideoTest, TooManyEpisodesForAGifAreRefusedSayingHowManyFit) {
  // 10x1000 tiles, four a row with 2-pixel gaps: 65 rows (260 episodes) fit in 65535 pixels.
  const auto envs = painters(261, 10, 1000, 10 * 1000 * 3);
  const std::string error = error_of([&] {
    EpisodeVideo video(path_.string(), 25);
    video.capture(*envs, std::vector<bool>(261, false));
  });
  EXPECT_NE(error.find("261 episodes of 'Painter-v0' make a picture 66130 pixels tall"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("record at most 260 --episodes"), std::string::npos) << error;

  const auto fitting = painters(260, 10, 1000, 10 * 1000 * 3);
  EpisodeVideo video(path_.string(), 25);
  video.capture(*fitting, std::vector<bool>(260, false));
  video.finish();
  EXPECT_TRUE(fs::exists(path_));
}

}  // namespace
}  // namespace mnrl::experiments
