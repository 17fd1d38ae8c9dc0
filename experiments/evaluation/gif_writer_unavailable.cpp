// GifWriter in a build without giflib (MNRL_WITH_GIF off): `mnrl eval --video` is refused, at
// once and by name, before any episode is played (a usage error: exit 2). The other members
// are never reached.
#include <stdexcept>

#include "experiments/evaluation/episode_video.h"
#include "experiments/evaluation/gif_writer.h"

namespace mnrl::experiments {

GifWriter::GifWriter(std::string path, int) : path_(std::move(path)), delay_centiseconds_(0) {
  throw VideoRequestError("cannot write GIF " + path_ +
                          ": this mnrl was built without giflib (Debian: libgif-dev; rebuild "
                          "mnrl with it for --video)");
}

GifWriter::~GifWriter() = default;
void GifWriter::add(const envs::RgbImage&) { check_open(); }
void GifWriter::finish() { check_open(); }
void GifWriter::check_open() const { throw std::logic_error("GifWriter: not open"); }
void GifWriter::fail(const std::string& doing, int) { throw std::runtime_error(doing); }
void GifWriter::discard() {}

}  // namespace mnrl::experiments
