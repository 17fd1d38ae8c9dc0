#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "envs/rgb_image.h"
#include "envs/vector_env.h"
#include "experiments/evaluation/gif_writer.h"

namespace mnrl::experiments {

// A --video request that no run of this env can meet (the env draws no pictures, or more
// --episodes than a GIF holds side by side): a usage error, found at the first frame, before
// any step is played.
class VideoRequestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `mnrl eval --video`: the evaluation episodes, which play side by side (one env each), as one
// animated GIF of tiles, up to four a row with grey gaps between them, each env's render()
// shrunk by a whole factor (averaging blocks of pixels) so that a row of tiles is at most about
// kMaxWidth pixels wide. An episode that has ended holds its last frame (the frame before its
// final step: the env has already started its next episode).
class EpisodeVideo {
 public:
  static constexpr int kMaxWidth = 1280;
  static constexpr int kColumns = 4;
  static constexpr int kGap = 2;  // pixels between tiles
  static constexpr std::uint8_t kGapGrey = 128;

  // Opens `path` for writing (GifWriter: nothing appears there until finish()).
  // `frames_per_second` sets the GIF's delay (rounded to centiseconds, as GIFs count time).
  EpisodeVideo(std::string path, int frames_per_second);

  // Draws the envs not yet done into their tiles and adds the picture as a frame. Throws
  // VideoRequestError naming the env when its render() draws nothing (an env without
  // pictures) or its episodes make a picture taller than a GIF allows, and
  // std::invalid_argument when an env's frame changes size.
  void capture(const envs::VectorEnv& envs, const std::vector<bool>& done);
  // Completes the GIF (GifWriter::finish).
  void finish() { writer_.finish(); }

 private:
  void place(const envs::RgbImage& frame, int env);

  GifWriter writer_;
  int scale_ = 0;  // the whole factor frames are shrunk by; 0 before the first capture
  int tile_width_ = 0, tile_height_ = 0;
  envs::RgbImage picture_;  // every tile, kept between frames
  envs::RgbImage frame_;    // one env's render()
};

}  // namespace mnrl::experiments
