#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace mnrl::apps {

// Drawing with gnuplot (`mnrl plot`, `mnrl report`): gnuplot sees no path or text of the user's
// but quoted labels, writes into a scratch directory, and the image is then moved into place.

// A gnuplot single-quoted string ('' stands for '). Control characters become '?': a line
// break would end the string and let the rest of the text run as gnuplot commands.
std::string gnuplot_quoted(const std::string& text);

// "set xtics (...)": ticks of the step axis at round values (1, 2 or 5 times a power of ten
// apart, 4 to 10 of them) labelled 750, 2.5k, 1.5M (gnuplot's "%.0s%c" labels 1.5M as 2M).
std::string step_ticks(std::int64_t last_step);

// A temporary directory removed when this goes out of scope.
struct ScratchDirectory {
  std::filesystem::path path;
  ScratchDirectory();
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
};

// Runs gnuplot on `script`; throws std::runtime_error with gnuplot's own words if it fails or
// is not installed. A stop request (core::install_stop_handlers) kills gnuplot and throws.
void run_gnuplot(const std::string& script);

// `png` (a PNG file's bytes) with a tEXt chunk `keyword`: `text` after its header, so an image
// says what it shows to a viewer's properties, exiftool, or a test (Latin-1 text; other bytes
// become '?'). Throws std::runtime_error for bytes that are not a PNG.
std::string png_with_text(const std::string& png, const std::string& keyword,
                          const std::string& text);

}  // namespace mnrl::apps
