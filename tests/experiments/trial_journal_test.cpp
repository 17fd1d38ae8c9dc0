// The tuning journal: appended whole lines, read back into trials; a line a dying process cut
// short is skipped, anything else unreadable is refused naming its line.
#include "experiments/studies/trial_journal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace {
using namespace mnrl::experiments;
namespace fs = std::filesystem;

class TrialJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mnrl_journal_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TrialRecord created(int number) {
  TrialRecord t;
  t.number = number;
  t.worker = "host:1@2";
  t.seed = 10 + number;
  t.parameters["ppo.learning_rate"] = "0.001";
  t.numbers["ppo.learning_rate"] = 0.001;
  return t;
}

TEST_F(TrialJournalTest, EventsReadBackIntoTrials) {
  const TrialJournal journal(dir_);
  const TrialJournal::Lock lock(journal);
  journal.created(created(0));
  journal.created(created(1));
  journal.report(0, 1000, -5.5);
  journal.report(0, 2000, -2.0);
  journal.ended(0, "complete", 7.25, 3000);
  journal.ended(1, "stopped", std::nullopt, 500);
  journal.resumed(1, "other:2@3", /*fresh=*/false);
  const std::vector<TrialRecord> trials = journal.read();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].state, "complete");
  EXPECT_EQ(*trials[0].value, 7.25);
  EXPECT_EQ(trials[0].steps, 3000);
  ASSERT_EQ(trials[0].reports.size(), 2u);
  EXPECT_EQ(trials[0].reports[1].first, 2000);
  EXPECT_EQ(trials[0].reports[1].second, -2.0);
  EXPECT_EQ(trials[0].parameters.at("ppo.learning_rate"), "0.001");
  EXPECT_EQ(trials[1].state, "running");
  EXPECT_EQ(trials[1].worker, "other:2@3");
  EXPECT_EQ(trials[1].seed, 11);
  // A fresh restart drops the reports of the attempt before.
  journal.report(1, 1000, 3.0);
  journal.resumed(1, "third:4@5", /*fresh=*/true);
  EXPECT_TRUE(journal.read()[1].reports.empty());
}

TEST_F(TrialJournalTest, ALineCutShortIsSkippedAndTheNextAppendStaysWhole) {
  const TrialJournal journal(dir_);
  const TrialJournal::Lock lock(journal);
  journal.created(created(0));
  std::ofstream(dir_ / "journal.yaml", std::ios::app) << "{event: \"report\", trial: 0, ste";
  EXPECT_EQ(journal.read().size(), 1u);
  journal.report(0, 1000, 1.5);
  const std::vector<TrialRecord> trials = journal.read();
  ASSERT_EQ(trials[0].reports.size(), 1u);
  EXPECT_EQ(trials[0].reports[0].second, 1.5);
}

TEST_F(TrialJournalTest, AnUnreadableLineIsRefusedNamingIt) {
  const TrialJournal journal(dir_);
  const TrialJournal::Lock lock(journal);
  journal.created(created(0));
  std::ofstream(dir_ / "journal.yaml", std::ios::app) << "{event: \"ended\", trial: 5, state: \"complete\", steps: 1}\n";
  try {
    journal.read();
    FAIL() << "a trial never created was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("never created"), std::string::npos) << e.what();
  }
}

}  // namespace
