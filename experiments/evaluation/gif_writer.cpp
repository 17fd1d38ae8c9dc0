#include "experiments/evaluation/gif_writer.h"

#include <gif_lib.h>

#include <array>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mnrl::experiments {
namespace {

// The palette: a 6 x 6 x 6 cube with channel levels 0, 51, ..., 255 (indices 0-215), then 40
// grays between them. Fixed rather than quantized per frame: env renders are a few flat colors,
// and Gymnasium's are mostly those levels (0, 204, 255), which the cube holds exactly. One global
// table keeps colors steady across frames and maps each pixel with a little arithmetic, where
// giflib's GifQuantizeBuffer (deprecated in 5.2) would build a local table for every frame, after
// cutting each channel to 5 bits, so that even flat colors would shift slightly.
constexpr int kCubeLevels = 6;
constexpr int kCubeColors = kCubeLevels * kCubeLevels * kCubeLevels;
constexpr int kGrays = 256 - kCubeColors;

int cube_level(int value) { return (value * (kCubeLevels - 1) + 127) / 255; }
int gray_value(int gray) { return (255 * (gray + 1) + (kGrays + 1) / 2) / (kGrays + 1); }

std::array<GifColorType, 256> make_palette() {
  std::array<GifColorType, 256> colors{};
  for (int i = 0; i < kCubeColors; ++i) {
    const auto level = [](int l) { return static_cast<GifByteType>(l * 255 / (kCubeLevels - 1)); };
    colors[i] = {level(i / 36), level(i / 6 % 6), level(i % 6)};
  }
  for (int gray = 0; gray < kGrays; ++gray) {
    const auto value = static_cast<GifByteType>(gray_value(gray));
    colors[kCubeColors + gray] = {value, value, value};
  }
  return colors;
}

int distance2(const GifColorType& color, int r, int g, int b) {
  return (color.Red - r) * (color.Red - r) + (color.Green - g) * (color.Green - g) +
         (color.Blue - b) * (color.Blue - b);
}

// The nearest palette color: the cube's nearest is channel by channel, the grays' nearest is the
// one nearest the channels' mean; the closer of the two wins.
GifPixelType nearest(const std::array<GifColorType, 256>& palette, int r, int g, int b) {
  const int cube = cube_level(r) * 36 + cube_level(g) * 6 + cube_level(b);
  const int mean = (r + g + b + 1) / 3;
  int gray = (mean * (kGrays + 1) + 127) / 255 - 1;
  gray = kCubeColors + (gray < 0 ? 0 : gray >= kGrays ? kGrays - 1 : gray);
  return static_cast<GifPixelType>(
      distance2(palette[gray], r, g, b) < distance2(palette[cube], r, g, b) ? gray : cube);
}

const std::array<GifColorType, 256>& palette() {
  static const std::array<GifColorType, 256> colors = make_palette();
  return colors;
}

}  // namespace

GifWriter::GifWriter(std::string path, int frame_delay_centiseconds)
    : path_(std::move(path)), delay_centiseconds_(frame_delay_centiseconds) {
  if (frame_delay_centiseconds < 0 || frame_delay_centiseconds > 65535) {
    throw std::invalid_argument("GIF frame delay " + std::to_string(frame_delay_centiseconds) +
                                " cs is outside [0, 65535]");
  }
  file_ = std::make_unique<core::AtomicFileWriter>(path_);
  int error = 0;
  gif_ = EGifOpen(this, &GifWriter::write_bytes, &error);
  if (gif_ == nullptr) {
    file_.reset();
    throw std::runtime_error("cannot write GIF " + path_ + ": " + GifErrorString(error));
  }
  EGifSetGifVersion(gif_, true);  // GIF89a, for the loop and delay extensions
}

int GifWriter::write_bytes(GifFileType* gif, const unsigned char* bytes, int size) {
  auto* writer = static_cast<GifWriter*>(gif->UserData);
  try {
    writer->file_->write(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(size));
    return size;
  } catch (const core::FileError& e) {
    if (writer->write_error_.empty()) writer->write_error_ = e.what();
    return 0;  // giflib then reports E_GIF_ERR_WRITE_FAILED
  }
}

GifWriter::~GifWriter() { discard(); }

void GifWriter::add(const envs::RgbImage& frame) {
  check_open();
  const auto size = [](int width, int height) {
    return std::to_string(width) + "x" + std::to_string(height);
  };
  if (width_ == 0) {
    if (frame.width < 1 || frame.height < 1 || frame.width > kMaxSide || frame.height > kMaxSide) {
      throw std::invalid_argument("a GIF frame must be 1 to 65535 pixels each way, not " +
                                  size(frame.width, frame.height) + " (" + path_ + ")");
    }
  } else if (frame.width != width_ || frame.height != height_) {
    throw std::invalid_argument(
        "GIF frames must all have one size: " + size(frame.width, frame.height) + " after " +
        size(width_, height_) + " (" + path_ + ")");
  }
  if (frame.pixels.size() != static_cast<std::size_t>(frame.width) * frame.height * 3) {
    throw std::invalid_argument("an RgbImage of " + size(frame.width, frame.height) + " with " +
                                std::to_string(frame.pixels.size()) + " bytes (" + path_ + ")");
  }

  if (width_ == 0) {
    ColorMapObject color_map{256, 8, false, const_cast<GifColorType*>(palette().data())};
    if (EGifPutScreenDesc(gif_, frame.width, frame.height, 8, 0, &color_map) == GIF_ERROR) {
      fail("writing", gif_->Error);
    }
    // NETSCAPE2.0: sub-block 1 carries the loop count, little-endian; 0 loops forever.
    const GifByteType loop[3] = {1, 0, 0};
    if (EGifPutExtensionLeader(gif_, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(gif_, 11, "NETSCAPE2.0") == GIF_ERROR ||
        EGifPutExtensionBlock(gif_, 3, loop) == GIF_ERROR ||
        EGifPutExtensionTrailer(gif_) == GIF_ERROR) {
      fail("writing", gif_->Error);
    }
    width_ = frame.width;
    height_ = frame.height;
  }

  GraphicsControlBlock control{DISPOSE_DO_NOT, false, delay_centiseconds_, NO_TRANSPARENT_COLOR};
  GifByteType extension[4];
  const auto extension_size = static_cast<int>(EGifGCBToExtension(&control, extension));
  if (EGifPutExtension(gif_, GRAPHICS_EXT_FUNC_CODE, extension_size, extension) == GIF_ERROR ||
      EGifPutImageDesc(gif_, 0, 0, width_, height_, false, nullptr) == GIF_ERROR) {
    fail("writing", gif_->Error);
  }
  const auto& colors = palette();
  std::vector<GifPixelType> row(static_cast<std::size_t>(width_));
  const std::uint8_t* pixel = frame.pixels.data();
  for (int y = 0; y < height_; ++y) {
    for (GifPixelType& index : row) {
      index = nearest(colors, pixel[0], pixel[1], pixel[2]);
      pixel += 3;
    }
    if (EGifPutLine(gif_, row.data(), width_) == GIF_ERROR) fail("writing", gif_->Error);
  }
}

void GifWriter::finish() {
  check_open();
  if (width_ == 0) {
    discard();
    throw std::logic_error("no frames to write to GIF " + path_);
  }
  int error = 0;
  if (EGifCloseFile(std::exchange(gif_, nullptr), &error) == GIF_ERROR) fail("finishing", error);
  file_->commit();
  file_.reset();
}

void GifWriter::check_open() const {
  if (gif_ == nullptr) throw std::logic_error("GIF " + path_ + " is already finished or failed");
}

void GifWriter::fail(const std::string& doing, int gif_error) {
  discard();
  if (!write_error_.empty()) throw std::runtime_error(doing + " GIF: " + write_error_);
  throw std::runtime_error(doing + " GIF " + path_ + ": " + GifErrorString(gif_error));
}

void GifWriter::discard() {
  if (gif_ != nullptr) {
    int ignored = 0;
    EGifCloseFile(std::exchange(gif_, nullptr), &ignored);
  }
  file_.reset();  // deletes the .tmp file, unless committed
}

}  // namespace mnrl::experiments
