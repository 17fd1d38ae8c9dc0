#include "experiments/evaluation/episode_video.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

namespace mnrl::experiments {
namespace {

// render() is a plugin's code: what it drew must be the picture it says it is.
void check_frame(const envs::RgbImage& frame, const std::string& env_id) {
  const std::size_t expected =
      static_cast<std::size_t>(std::max(frame.width, 0)) * std::max(frame.height, 0) * 3;
  if (frame.width < 1 || frame.height < 1 || frame.pixels.size() != expected) {
    throw std::runtime_error("--video: '" + env_id + "' render() drew a " +
                             std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                             " picture with " + std::to_string(frame.pixels.size()) +
                             " bytes; an RgbImage needs width and height >= 1 and width x "
                             "height x 3 bytes (RgbImage::resize)");
  }
}

}  // namespace

EpisodeVideo::EpisodeVideo(std::string path, int frames_per_second)
    : writer_(std::move(path), std::max(1, (100 + frames_per_second / 2) / frames_per_second)) {}

void EpisodeVideo::capture(const envs::VectorEnv& envs, const std::vector<bool>& done) {
  for (int env = 0; env < envs.num_envs(); ++env) {
    if (done[static_cast<std::size_t>(env)]) continue;
    if (!envs.render(static_cast<std::size_t>(env), frame_)) {
      throw VideoRequestError("--video: '" + envs.spec().id +
                              "' draws no pictures (its render() returns false)");
    }
    check_frame(frame_, envs.spec().id);
    if (scale_ == 0) {
      const int columns = std::min(envs.num_envs(), kColumns);
      const int rows = (envs.num_envs() + kColumns - 1) / kColumns;
      // Never below a pixel: a frame far wider than tall keeps a row of pixels.
      scale_ = std::clamp((frame_.width * columns + kMaxWidth - 1) / kMaxWidth, 1,
                          std::min(frame_.width, frame_.height));
      tile_width_ = frame_.width / scale_;
      tile_height_ = frame_.height / scale_;
      const long long height = static_cast<long long>(tile_height_ + kGap) * rows - kGap;
      if (height > GifWriter::kMaxSide) {
        throw VideoRequestError(
            "--video: " + std::to_string(envs.num_envs()) + " episodes of '" + envs.spec().id +
            "' make a picture " + std::to_string(height) + " pixels tall, more than a GIF's " +
            std::to_string(GifWriter::kMaxSide) + "; record at most " +
            std::to_string(kColumns * ((GifWriter::kMaxSide + kGap) / (tile_height_ + kGap))) +
            " --episodes");
      }
      picture_.resize(tile_width_ * columns + kGap * (columns - 1),
                      tile_height_ * rows + kGap * (rows - 1));
      std::fill(picture_.pixels.begin(), picture_.pixels.end(), kGapGrey);
    }
    place(frame_, env);
  }
  writer_.add(picture_);
}

void EpisodeVideo::place(const envs::RgbImage& frame, int env) {
  if (frame.width / scale_ != tile_width_ || frame.height / scale_ != tile_height_) {
    throw std::invalid_argument("--video: env " + std::to_string(env) + " drew a " +
                                std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                                " frame after " + std::to_string(tile_width_ * scale_) + "x" +
                                std::to_string(tile_height_ * scale_));
  }
  const int left = (env % kColumns) * (tile_width_ + kGap);
  const int top = (env / kColumns) * (tile_height_ + kGap);
  // Shrinking by averaging each scale x scale block, so thin lines (CartPole's track) survive.
  const int block = scale_ * scale_;
  for (int y = 0; y < tile_height_; ++y) {
    for (int x = 0; x < tile_width_; ++x) {
      int sums[3] = {0, 0, 0};
      for (int dy = 0; dy < scale_; ++dy) {
        const std::uint8_t* row =
            &frame.pixels[(static_cast<std::size_t>(y * scale_ + dy) * frame.width + x * scale_) *
                          3];
        for (int i = 0; i < 3 * scale_; ++i) sums[i % 3] += row[i];
      }
      std::uint8_t* to =
          &picture_.pixels[(static_cast<std::size_t>(top + y) * picture_.width + left + x) * 3];
      for (int c = 0; c < 3; ++c) to[c] = static_cast<std::uint8_t>((sums[c] + block / 2) / block);
    }
  }
}

}  // namespace mnrl::experiments
