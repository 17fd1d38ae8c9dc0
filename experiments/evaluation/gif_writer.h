#pragma once

#include <memory>
#include <string>

#include "core/files.h"
#include "envs/rgb_image.h"

struct GifFileType;  // giflib's, from gif_lib.h

namespace mnrl::experiments {

// Writes frames as an animated GIF that loops forever, every frame shown for the same delay.
// The GIF appears at `path` only when finish() succeeds, written as any output file is
// (core::AtomicFileWriter): frames go to `path + ".tmp"`, renamed at the end, so a crash or an
// error never leaves a truncated GIF at `path`, and only a regular file is ever replaced.
//
// Colors map to the nearest of one fixed palette (see gif_writer.cpp): exact when every channel
// is a multiple of 51 (0, 51, ..., 255), within 3 for grays, about 25 per channel at worst else.
class GifWriter {
 public:
  static constexpr int kMaxSide = 65535;  // pixels each way, as a GIF counts them

  // Creates `path + ".tmp"` at once, so that an unwritable path fails before any episode is
  // played: core::FileError naming it (something other than a regular file at `path`, an
  // unwritable directory). std::invalid_argument for a delay outside [0, 65535].
  GifWriter(std::string path, int frame_delay_centiseconds);
  // Without a successful finish(), deletes the .tmp file.
  ~GifWriter();
  GifWriter(const GifWriter&) = delete;
  GifWriter& operator=(const GifWriter&) = delete;

  // std::invalid_argument, naming both sizes, unless the frame has the first frame's size; for
  // the first, unless it is 1 to 65535 pixels each way; the writer stays usable. On a write
  // error, std::runtime_error, and the writer discards the file and closes.
  void add(const envs::RgbImage& frame);
  // Completes the GIF and renames it to `path`. std::logic_error naming the path when no frame
  // was added (nothing is left on disk then), std::runtime_error or core::FileError on a write
  // or rename error.
  // The writer is closed afterwards, whatever happened.
  void finish();

 private:
  // std::logic_error once finished or failed.
  void check_open() const;
  // Discards the file, then throws std::runtime_error with the write's error, or giflib's
  // message for `gif_error`.
  [[noreturn]] void fail(const std::string& doing, int gif_error);
  // Closes and deletes the .tmp file, if still open.
  void discard();
  // giflib's output function: appends to file_, keeping the error of a failed write.
  static int write_bytes(GifFileType* gif, const unsigned char* bytes, int size);

  std::string path_;
  int delay_centiseconds_;
  std::unique_ptr<core::AtomicFileWriter> file_;
  std::string write_error_;     // why the last write failed; empty if none did
  GifFileType* gif_ = nullptr;  // null once finished or failed
  int width_ = 0;               // the first frame's size; 0 before it
  int height_ = 0;
};

}  // namespace mnrl::experiments
