#include "experiments/studies/trial_journal.h"

#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "core/yaml_writer.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;
namespace {

constexpr const char* kJournal = "journal.yaml";
constexpr const char* kJournalLock = "journal.lock";

std::string failure(const std::string& what, const fs::path& path) {
  return what + " " + path.string() + ": " + std::strerror(errno);
}

struct flock whole_file(short type) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  return lock;
}

void apply(TrialRecord& trial, const YAML::Node& event, const std::string& kind) {
  if (kind == "report") {
    trial.reports.emplace_back(event["step"].as<std::int64_t>(), event["value"].as<double>());
  } else if (kind == "resumed") {
    trial.state = "running";
    trial.worker = event["worker"].as<std::string>();
    if (event["fresh"].as<bool>()) trial.reports.clear();
  } else if (kind == "ended") {
    trial.state = event["state"].as<std::string>();
    if (event["value"]) trial.value = event["value"].as<double>();
    trial.steps = event["steps"].as<std::int64_t>();
  } else {
    throw std::runtime_error("unknown event '" + kind + "'");
  }
}

}  // namespace

TrialJournal::TrialJournal(const fs::path& study_dir) : path_(study_dir / kJournal) {
  const fs::path lock = study_dir / kJournalLock;
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) throw std::runtime_error(failure("cannot open", lock));
}

TrialJournal::~TrialJournal() { ::close(lock_fd_); }

TrialJournal::Lock::Lock(const TrialJournal& journal) : fd_(journal.lock_fd_) {
  struct flock lock = whole_file(F_WRLCK);
  while (::fcntl(fd_, F_SETLKW, &lock) != 0) {
    if (errno != EINTR) throw std::runtime_error(failure("cannot lock", journal.path_));
  }
}

TrialJournal::Lock::~Lock() {
  struct flock unlock = whole_file(F_UNLCK);
  ::fcntl(fd_, F_SETLK, &unlock);
}

std::vector<TrialRecord> TrialJournal::read() const {
  std::vector<TrialRecord> trials;
  std::ifstream in(path_, std::ios::binary);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    try {
      YAML::Node event;
      try {
        event = YAML::Load(line);
      } catch (const YAML::ParserException&) {
        // A write cut short (its process died in it; the next append ended its line) is the
        // start of an event line: skipped, its event never happened for anyone.
        const std::string start = "{event:";
        if (line.rfind(start, 0) == 0 || start.rfind(line, 0) == 0) continue;
        throw;
      }
      const std::string kind = event["event"].as<std::string>();
      const int trial = event["trial"].as<int>();
      if (kind == "created") {
        if (trial != static_cast<int>(trials.size())) {
          throw std::runtime_error("trial " + std::to_string(trial) + " created out of order");
        }
        TrialRecord record;
        record.number = trial;
        record.worker = event["worker"].as<std::string>();
        record.seed = event["seed"].as<std::int64_t>();
        for (const auto& p : event["parameters"]) {
          record.parameters[p.first.as<std::string>()] = p.second.as<std::string>();
        }
        for (const auto& n : event["numbers"]) {
          record.numbers[n.first.as<std::string>()] = n.second.as<double>();
        }
        trials.push_back(std::move(record));
      } else if (trial < 0 || trial >= static_cast<int>(trials.size())) {
        throw std::runtime_error("trial " + std::to_string(trial) + " was never created");
      } else {
        apply(trials[static_cast<std::size_t>(trial)], event, kind);
      }
    } catch (const std::exception& e) {
      throw std::runtime_error("the study's journal " + path_.string() + " line " +
                               std::to_string(number) + " cannot be read: " + e.what());
    }
  }
  return trials;
}

void TrialJournal::created(const TrialRecord& trial) const {
  core::YamlWriter out;
  out.begin_map(/*flow=*/true).key("event").text("created").key("trial").integer(trial.number);
  out.key("worker").text(trial.worker).key("seed").integer(trial.seed);
  out.key("parameters").begin_map(/*flow=*/true);
  for (const auto& [key, text] : trial.parameters) out.key(key).text(text);
  out.end_map().key("numbers").begin_map(/*flow=*/true);
  for (const auto& [key, number] : trial.numbers) out.key(key).number(number);
  out.end_map().end_map();
  append(out.str());
}

void TrialJournal::resumed(int number, const std::string& worker, bool fresh) const {
  core::YamlWriter out;
  out.begin_map(/*flow=*/true).key("event").text("resumed").key("trial").integer(number);
  out.key("worker").text(worker).key("fresh").boolean(fresh).end_map();
  append(out.str());
}

void TrialJournal::report(int number, std::int64_t step, double value) const {
  core::YamlWriter out;
  out.begin_map(/*flow=*/true).key("event").text("report").key("trial").integer(number);
  out.key("step").integer(step).key("value").number(value).end_map();
  append(out.str());
}

void TrialJournal::ended(int number, const std::string& state, std::optional<double> value,
                         std::int64_t steps) const {
  core::YamlWriter out;
  out.begin_map(/*flow=*/true).key("event").text("ended").key("trial").integer(number);
  out.key("state").text(state);
  if (value) out.key("value").number(*value);
  out.key("steps").integer(steps).end_map();
  append(out.str());
}

// One write() of the whole line with O_APPEND: a reader never sees half of it, unless the
// process dies inside the call (the reader skips a last line without its newline).
void TrialJournal::append(const std::string& line) const {
  std::string text = line;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  text += '\n';
  const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(failure("cannot open", path_));
  // A line a process died writing stays unfinished: end it, so that this one is whole (the
  // reader skips the torn one).
  const off_t size = ::lseek(fd, 0, SEEK_END);
  char last = '\n';
  if (size > 0 && ::pread(fd, &last, 1, size - 1) == 1 && last != '\n') text.insert(0, "\n");
  const ssize_t written = ::write(fd, text.data(), text.size());
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (written != static_cast<ssize_t>(text.size()) || !synced) {
    throw std::runtime_error(failure("cannot append to", path_));
  }
}

}  // namespace mnrl::experiments
