#include "core/files.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include "core/run_directory.h"

namespace mnrl::core {
namespace {
namespace fs = std::filesystem;

// An empty directory under the test temp dir, removed with its contents at the end.
class FilesTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) /
           ("mnrl_files_test_" + std::to_string(::getpid()) + "_" +
            testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string contents(const fs::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  fs::path dir_;
};

template <class Action>
std::string file_error_of(Action action) {
  try {
    action();
  } catch (const FileError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a FileError";
  return "";
}

// A file written in pieces (a GIF) appears whole or not at all, and a symlink left at its
// temporary name is neither followed nor its target overwritten.
TEST_F(FilesTest, AFileWrittenInPiecesAppearsOnlyWhenCommitted) {
  const fs::path file = dir_ / "out.gif";
  {
    AtomicFileWriter abandoned(file);
    abandoned.write("GIF", 3);
    EXPECT_FALSE(fs::exists(file));
  }
  EXPECT_TRUE(fs::is_empty(dir_));
  AtomicFileWriter writer(file);
  writer.write("GIF", 3);
  writer.write("89a", 3);
  writer.commit();
  EXPECT_EQ(contents(file), "GIF89a");
  EXPECT_FALSE(fs::exists(dir_ / "out.gif.tmp"));

  std::ofstream(dir_ / "precious") << "keep";
  fs::create_symlink(dir_ / "precious", dir_ / "out.gif.tmp");
  EXPECT_EQ(file_error_of([&] { AtomicFileWriter again(file); }),
            "will not write '" + (dir_ / "out.gif.tmp").string() +
                "': it is a symbolic link, not a regular file");
  EXPECT_EQ(contents(dir_ / "precious"), "keep");
  EXPECT_EQ(contents(file), "GIF89a");
}

TEST_F(FilesTest, WritesReplaceOnlyRegularFiles) {
  const fs::path file = dir_ / "out.txt";
  write_file_atomically(file, "one");
  write_file_atomically(file, "two");
  EXPECT_EQ(contents(file), "two");

  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(file_error_of([&] { write_file_atomically(fifo, "x"); }),
            "will not write '" + fifo.string() +
                "': it is a FIFO, and only a regular file is ever replaced");
  EXPECT_TRUE(fs::is_fifo(fifo));

  const fs::path link = dir_ / "link";
  fs::create_symlink(file, link);
  EXPECT_NE(file_error_of([&] { write_file_atomically(link, "x"); }).find("a symbolic link"),
            std::string::npos);
  EXPECT_EQ(contents(file), "two");

  EXPECT_NE(file_error_of([&] { write_file_atomically(dir_, "x"); }).find("a directory"),
            std::string::npos);
  // A device, as root could otherwise replace it.
  EXPECT_EQ(file_error_of([] { write_file_atomically("/dev/null", "x"); }),
            "will not write '/dev/null': it is a character device, and only a regular file is "
            "ever replaced");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // Nothing left behind by the refusals.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 3);
}

TEST_F(FilesTest, AFifoAtTheTemporaryNameIsRefusedNotWaitedOn) {
  const fs::path file = dir_ / "out.txt";
  ASSERT_EQ(mkfifo((dir_ / "out.txt.tmp").c_str(), 0600), 0);
  EXPECT_NE(file_error_of([&] { write_file_atomically(file, "x"); }).find("cannot write"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(file));
}

TEST_F(FilesTest, ReadsAreBoundedAndRefuseWhatIsNotAFile) {
  const fs::path file = dir_ / "in.txt";
  write_file_atomically(file, "12345");
  EXPECT_EQ(read_regular_file(file, 5, "test file"), "12345");
  EXPECT_EQ(file_error_of([&] { read_regular_file(file, 4, "test file"); }),
            "test file '" + file.string() + "' is larger than the 4 bytes allowed");
  EXPECT_EQ(file_error_of([] { read_regular_file("/dev/zero", 100, "test file"); }),
            "test file '/dev/zero' is a character device, not a regular file");
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(file_error_of([&] { check_regular_file(fifo, "plugin"); }),
            "plugin '" + fifo.string() + "' is a FIFO, not a regular file");
  EXPECT_EQ(file_error_of([&] { read_regular_file(dir_ / "missing", 1, "test file"); }),
            "cannot read test file '" + (dir_ / "missing").string() +
                "': No such file or directory");
}

// A full disk is reported by the write that hits it: a file size limit makes the same EFBIG
// failure without filling a disk.
TEST_F(FilesTest, AFailedAppendIsReportedAtOnceWithTheReason) {
  AppendOnlyFile file(dir_ / "metrics.csv", /*truncate=*/true);
  file.append("header\n");
  struct rlimit saved {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limited = saved;
  limited.rlim_cur = 64;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
  const std::string message = file_error_of([&] { file.append(std::string(100, 'x')); });
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous_handler);
  EXPECT_EQ(message, "writing '" + (dir_ / "metrics.csv").string() + "' failed: File too large");
}

TEST_F(FilesTest, OneProcessAtATimeHoldsARunDirectory) {
  std::optional<RunDirectoryLock> first(std::in_place, dir_);
  std::string message;
  try {
    RunDirectoryLock second(dir_);
  } catch (const RunDirectoryError& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "run directory '" + dir_.string() + "' is in use by another mnrl process (PID " +
                         std::to_string(::getpid()) +
                         "); one process at a time may train in a run directory");
  first.reset();  // released: the next one gets it
  EXPECT_NO_THROW(RunDirectoryLock third(dir_));
}

}  // namespace
}  // namespace mnrl::core
