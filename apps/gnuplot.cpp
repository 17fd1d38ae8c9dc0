#include "apps/gnuplot.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <stdexcept>

#include "core/stop_signal.h"

namespace mnrl::apps {
namespace fs = std::filesystem;
namespace {

// "750", "2.5k", "1.5M": a step count as a tick label.
std::string step_label(double value) {
  char text[32];
  if (value >= 1e6) {
    std::snprintf(text, sizeof text, "%gM", value / 1e6);
  } else if (value >= 1e3) {
    std::snprintf(text, sizeof text, "%gk", value / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%g", value);
  }
  return text;
}

// PNG's chunk checksum: CRC-32 (ISO 3309, polynomial 0xedb88320) of the type and data.
std::uint32_t png_crc(const std::string& bytes) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xffffffffu;
  for (const char byte : bytes) c = table[(c ^ static_cast<unsigned char>(byte)) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

std::string big_endian(std::uint32_t value) {
  return {static_cast<char>(value >> 24), static_cast<char>(value >> 16),
          static_cast<char>(value >> 8), static_cast<char>(value)};
}

}  // namespace

std::string gnuplot_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "''";
    } else {
      out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
    }
  }
  return out + "'";
}

std::string step_ticks(std::int64_t last_step) {
  const double range = std::max<double>(static_cast<double>(last_step), 1.0);
  double spacing = std::pow(10.0, std::floor(std::log10(range)));
  for (const double factor : {0.5, 0.4, 0.5}) {  // 10^k, then 5, 2 and 1 times 10^(k-1)
    if (range / spacing >= 4) break;
    spacing *= factor;
  }
  spacing = std::max(spacing, 1.0);
  std::string ticks = "set xtics (";
  for (int i = 0; i * spacing <= range; ++i) {
    ticks += (i ? ", " : "") + gnuplot_quoted(step_label(i * spacing)) + " " +
             std::to_string(static_cast<std::int64_t>(i * spacing));
  }
  return ticks + ")\n";
}

ScratchDirectory::ScratchDirectory() {
  std::string pattern = (fs::temp_directory_path() / "mnrl-plot-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory");
  path = pattern;
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ignored;
  fs::remove_all(path, ignored);
}


void run_gnuplot(const std::string& script) {
  int output[2];
  if (pipe2(output, O_CLOEXEC) != 0) throw std::runtime_error("cannot run gnuplot: no pipe");
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("cannot run gnuplot: fork failed");
  if (child == 0) {
    dup2(output[1], STDOUT_FILENO);
    dup2(output[1], STDERR_FILENO);
    execlp("gnuplot", "gnuplot", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(output[1]);
  std::string text;
  char buffer[512];
  for (;;) {
    const ssize_t count = read(output[0], buffer, sizeof buffer);
    if (count > 0) text.append(buffer, static_cast<std::size_t>(count));
    if (count == 0 || (count < 0 && errno != EINTR)) break;
    // A stop request (core::install_stop_handlers) interrupts the read: gnuplot goes with us.
    if (core::stop_requested()) {
      kill(child, SIGKILL);
      break;
    }
  }
  close(output[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (core::stop_requested()) throw std::runtime_error("stopped");
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
    throw std::runtime_error("gnuplot is not installed (Debian: apt-get install gnuplot-nox; "
                             "scripts/setup.sh installs it)");
  }
  if (WEXITSTATUS(status) != 0) throw std::runtime_error("gnuplot failed: " + text);
}

std::string png_with_text(const std::string& png, const std::string& keyword,
                          const std::string& text) {
  static const std::string signature = "\x89PNG\r\n\x1a\n";
  constexpr std::size_t header_end = 8 + 4 + 4 + 13 + 4;  // signature, then the IHDR chunk
  if (png.size() < header_end || png.compare(0, signature.size(), signature) != 0 ||
      png.compare(12, 4, "IHDR") != 0) {
    throw std::runtime_error("not a PNG image");
  }
  std::string data = keyword + '\0';
  for (const char c : text) data += c == '\n' || static_cast<unsigned char>(c) >= 0x20 ? c : '?';
  const std::string chunk = "tEXt" + data;
  return png.substr(0, header_end) + big_endian(static_cast<std::uint32_t>(data.size())) + chunk +
         big_endian(png_crc(chunk)) + png.substr(header_end);
}

}  // namespace mnrl::apps
