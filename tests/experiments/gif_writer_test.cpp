// GIFs read back with giflib's own decoder.
#include "experiments/evaluation/gif_writer.h"

#include <gif_lib.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "tests/error_of.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;
using test_util::error_of;

envs::RgbImage solid(int width, int height, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  envs::RgbImage image;
  image.resize(width, height);
  for (std::size_t i = 0; i < image.pixels.size(); i += 3) {
    image.pixels[i] = r;
    image.pixels[i + 1] = g;
    image.pixels[i + 2] = b;
  }
  return image;
}

// A GIF slurped whole by giflib; closed when the test ends.
class SlurpedGif {
 public:
  explicit SlurpedGif(const fs::path& path) {
    int error = 0;
    gif_ = DGifOpenFileName(path.c_str(), &error);
    if (gif_ == nullptr) throw std::runtime_error(GifErrorString(error));
    if (DGifSlurp(gif_) == GIF_ERROR) throw std::runtime_error(GifErrorString(gif_->Error));
  }
  ~SlurpedGif() { DGifCloseFile(gif_, nullptr); }
  SlurpedGif(const SlurpedGif&) = delete;
  SlurpedGif& operator=(const SlurpedGif&) = delete;
  const GifFileType* operator->() const { return gif_; }
  GifFileType* get() { return gif_; }

  // The color of pixel (x, y) of image `index`.
  GifColorType color(int index, int x, int y) const {
    const SavedImage& image = gif_->SavedImages[index];
    const ColorMapObject* map =
        image.ImageDesc.ColorMap != nullptr ? image.ImageDesc.ColorMap : gif_->SColorMap;
    return map->Colors[image.RasterBits[y * image.ImageDesc.Width + x]];
  }

 private:
  GifFileType* gif_ = nullptr;
};

class GifWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mnrl_gif_writer_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  bool only_file_is(const fs::path& path) const {
    int files = 0;
    for (const auto& entry : fs::directory_iterator(dir_)) files += entry.path() == path ? 1 : 2;
    return files == (path.empty() ? 0 : 1);
  }
  fs::path dir_;
};

TEST_F(GifWriterTest, ReadsBackFramesSizeDelayAndLoop) {
  const fs::path path = dir_ / "episode.gif";
  GifWriter writer(path.string(), 4);
  envs::RgbImage first = solid(30, 20, 255, 255, 255);
  first.pixels[(5 * 30 + 7) * 3] = 0;  // pixel (7, 5) cyan, Acrobot's link color
  first.pixels[(5 * 30 + 7) * 3 + 1] = 204;
  first.pixels[(5 * 30 + 7) * 3 + 2] = 204;
  writer.add(first);
  writer.add(solid(30, 20, 202, 152, 101));  // CartPole's pole: not a palette color
  writer.add(solid(30, 20, 128, 128, 128));
  EXPECT_TRUE(fs::exists(dir_ / "episode.gif.tmp"));
  EXPECT_FALSE(fs::exists(path));
  writer.finish();
  EXPECT_TRUE(only_file_is(path));

  SlurpedGif gif(path);
  EXPECT_EQ(gif->ImageCount, 3);
  EXPECT_EQ(gif->SWidth, 30);
  EXPECT_EQ(gif->SHeight, 20);
  for (int i = 0; i < gif->ImageCount; ++i) {
    EXPECT_EQ(gif->SavedImages[i].ImageDesc.Width, 30);
    EXPECT_EQ(gif->SavedImages[i].ImageDesc.Height, 20);
    GraphicsControlBlock control;
    ASSERT_EQ(DGifSavedExtensionToGCB(gif.get(), i, &control), GIF_OK);
    EXPECT_EQ(control.DelayTime, 4);
  }

  // NETSCAPE2.0 with loop count 0 (forever), before the first image.
  const SavedImage& image = gif->SavedImages[0];
  bool loops = false;
  for (int i = 0; i + 1 < image.ExtensionBlockCount; ++i) {
    const ExtensionBlock& block = image.ExtensionBlocks[i];
    const ExtensionBlock& next = image.ExtensionBlocks[i + 1];
    if (block.Function == APPLICATION_EXT_FUNC_CODE && block.ByteCount == 11 &&
        std::memcmp(block.Bytes, "NETSCAPE2.0", 11) == 0) {
      loops = next.Function == CONTINUE_EXT_FUNC_CODE && next.ByteCount == 3 &&
              next.Bytes[0] == 1 && next.Bytes[1] == 0 && next.Bytes[2] == 0;
    }
  }
  EXPECT_TRUE(loops);

  const auto expect_color = [&](int index, int x, int y, int r, int g, int b, int tolerance) {
    const GifColorType c = gif.color(index, x, y);
    EXPECT_NEAR(c.Red, r, tolerance) << "image " << index;
    EXPECT_NEAR(c.Green, g, tolerance) << "image " << index;
    EXPECT_NEAR(c.Blue, b, tolerance) << "image " << index;
  };
  expect_color(0, 7, 5, 0, 204, 204, 0);  // exact: palette levels
  expect_color(0, 8, 5, 255, 255, 255, 0);
  expect_color(1, 29, 19, 202, 152, 101, 3);
  expect_color(2, 0, 0, 128, 128, 128, 3);  // a gray of the palette's ramp
}

TEST_F(GifWriterTest, MismatchedSizesThrowNamingThem) {
  GifWriter writer((dir_ / "a.gif").string(), 2);
  writer.add(solid(30, 20, 0, 0, 0));
  const std::string message =
      error_of<std::invalid_argument>([&] { writer.add(solid(31, 20, 0, 0, 0)); });
  EXPECT_NE(message.find("31x20"), std::string::npos) << message;
  EXPECT_NE(message.find("30x20"), std::string::npos) << message;
  writer.add(solid(30, 20, 9, 9, 9));  // the writer is still usable
  writer.finish();
  SlurpedGif gif(dir_ / "a.gif");
  EXPECT_EQ(gif->ImageCount, 2);
}

TEST_F(GifWriterTest, EmptyFramesAndBadDelaysAreRefused) {
  GifWriter writer((dir_ / "a.gif").string(), 2);
  EXPECT_THROW(writer.add(envs::RgbImage{}), std::invalid_argument);
  envs::RgbImage short_pixels = solid(4, 4, 0, 0, 0);
  short_pixels.pixels.pop_back();
  EXPECT_THROW(writer.add(short_pixels), std::invalid_argument);
  EXPECT_THROW(GifWriter((dir_ / "b.gif").string(), -1), std::invalid_argument);
  EXPECT_THROW(GifWriter((dir_ / "b.gif").string(), 65536), std::invalid_argument);
}

TEST_F(GifWriterTest, UnwritableDirectoryThrowsWithThePath) {
  std::ofstream(dir_ / "file") << "not a directory";
  const std::string path = (dir_ / "file" / "out.gif").string();
  const std::string message = error_of<std::runtime_error>([&] { GifWriter writer(path, 2); });
  EXPECT_NE(message.find(path), std::string::npos) << message;
}

TEST_F(GifWriterTest, NoFramesLeavesNothingBehind) {
  const fs::path path = dir_ / "none.gif";
  {
    GifWriter writer(path.string(), 2);
    const std::string message = error_of<std::logic_error>([&] { writer.finish(); });
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_THROW(writer.add(solid(2, 2, 0, 0, 0)), std::logic_error);  // closed now
  }
  EXPECT_TRUE(only_file_is({}));
}

TEST_F(GifWriterTest, UnfinishedWriterLeavesNothingBehind) {
  const fs::path path = dir_ / "crash.gif";
  {
    GifWriter writer(path.string(), 2);
    writer.add(solid(8, 8, 255, 0, 0));
  }
  EXPECT_TRUE(only_file_is({}));
}

TEST_F(GifWriterTest, FinishedGifIsReadableByOthers) {
  const fs::path path = dir_ / "shared.gif";
  const mode_t old_mask = ::umask(022);
  GifWriter writer(path.string(), 2);
  writer.add(solid(2, 2, 0, 0, 0));
  writer.finish();
  ::umask(old_mask);
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::others_read, fs::perms::others_read);
}

TEST_F(GifWriterTest, OverwritesAnOlderGif) {
  const fs::path path = dir_ / "again.gif";
  for (int frames = 1; frames <= 2; ++frames) {
    GifWriter writer(path.string(), 2);
    for (int i = 0; i < frames; ++i) writer.add(solid(4, 3, 0, 0, 0));
    writer.finish();
  }
  SlurpedGif gif(path);
  EXPECT_EQ(gif->ImageCount, 2);
  EXPECT_TRUE(only_file_is(path));
}

}  // namespace
}  // namespace mnrl::experiments
