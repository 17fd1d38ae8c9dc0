// The checkpoint container: complete directories only, every file checked against the manifest,
// the newest usable one found, old ones pruned.
#include "experiments/checkpoints/checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "experiments/checkpoints/training_checkpoint.h"

namespace mnrl::experiments {
namespace {
namespace fs = std::filesystem;

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_ = fs::temp_directory_path() /
           ("mnrl_checkpoint_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(run_);
    fs::create_directories(run_);
  }
  void TearDown() override { fs::remove_all(run_); }

  fs::path write(std::int64_t step) {
    CheckpointWriter writer(run_, {step, "ppo", "CartPole-v1", std::nullopt});
    writer.add("agent.state", std::string(1000, 'a') + std::to_string(step));
    writer.add("envs.state", "envs");
    return writer.commit("now");
  }

  std::string error_of(const fs::path& directory) {
    try {
      Checkpoint::open(directory);
    } catch (const CheckpointError& e) {
      return e.what();
    }
    return "(no error)";
  }

  fs::path run_;
};

TEST_F(CheckpointTest, WritesACompleteDirectoryThatOpens) {
  const fs::path written = write(1200);
  EXPECT_EQ(written, run_ / "checkpoints" / "step_000000001200");
  const Checkpoint checkpoint = Checkpoint::open(written);
  EXPECT_EQ(checkpoint.info().step, 1200);
  EXPECT_EQ(checkpoint.info().algo, "ppo");
  EXPECT_EQ(checkpoint.info().env, "CartPole-v1");
  EXPECT_EQ(checkpoint.read("envs.state"), "envs");
  EXPECT_FALSE(checkpoint.has("replay.bin"));
  for (const auto& entry : fs::directory_iterator(run_ / "checkpoints")) {
    EXPECT_EQ(entry.path(), written) << "nothing else is left behind";
  }
}

TEST_F(CheckpointTest, AnAbandonedWriteLeavesNoCheckpoint) {
  {
    CheckpointWriter writer(run_, {5, "ppo", "CartPole-v1", std::nullopt});
    writer.add("agent.state", "partial");
  }  // no commit: as if the process died
  EXPECT_TRUE(list_checkpoints(run_).empty());
  EXPECT_TRUE(fs::is_empty(run_ / "checkpoints"));
}

// Writing a step again replaces the checkpoint, and leftovers of killed writes are cleared.
TEST_F(CheckpointTest, RewritingAStepReplacesItAndLeftoversAreCleared) {
  write(10);
  fs::create_directories(run_ / "checkpoints" / ".partial-step_000000000007" / "x");
  fs::create_directories(run_ / "checkpoints" / ".superseded-step_000000000004");
  CheckpointWriter writer(run_, {10, "dqn", "CartPole-v1", std::nullopt});
  writer.add("agent.state", "second");
  writer.commit("now");
  const Checkpoint again = Checkpoint::open(run_ / "checkpoints" / "step_000000000010");
  EXPECT_EQ(again.info().algo, "dqn");
  EXPECT_EQ(again.read("agent.state"), "second");
  EXPECT_FALSE(again.has("envs.state"));
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(run_ / "checkpoints")) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"step_000000000010"});
}

// Only step_<digits> directories within int64 are checkpoints of the run, ordered by step: a
// copy named step_good or step_<too many digits> was resumed from.
TEST_F(CheckpointTest, OnlyStepNamesWithinInt64AreListed) {
  const fs::path written = write(10);
  write(20);
  for (const char* copy : {"step_good", "step_99999999999999999999", "step_",
                           "step_0000000000010" /* 13 digits: step 10 */}) {
    fs::copy(written, run_ / "checkpoints" / copy, fs::copy_options::recursive);
  }
  std::vector<std::string> names;
  for (const auto& path : list_checkpoints(run_)) names.push_back(path.filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"step_0000000000010", "step_000000000010",
                                             "step_000000000020"}));
  EXPECT_EQ(checkpoint_step("step_9223372036854775807"), INT64_MAX);
  EXPECT_EQ(checkpoint_step("step_9223372036854775808"), std::nullopt);
  EXPECT_EQ(open_latest_checkpoint(run_, [](const std::string&) {}).info().step, 20);
}

// A second Ctrl-C while rotation deleted a checkpoint left a step_ directory without its
// manifest, which nothing removed: the next checkpoint clears it as it clears .partial- ones,
// and leaves a step_ directory that holds anything else.
TEST_F(CheckpointTest, RemnantsOfAnInterruptedRemovalAreCleared) {
  const fs::path remnant = run_ / "checkpoints" / "step_000000000005";
  fs::create_directories(remnant);
  std::ofstream(remnant / "agent.state") << "a";
  std::ofstream(remnant / "config.yaml") << "c";
  const fs::path foreign = run_ / "checkpoints" / "step_000000000006";
  fs::create_directories(foreign);
  std::ofstream(foreign / "notes.txt") << "mine";
  write(10);
  EXPECT_FALSE(fs::exists(remnant));
  EXPECT_TRUE(fs::exists(foreign / "notes.txt"));
}

// A manifest lists each file once: a second entry would check one copy and describe another.
TEST_F(CheckpointTest, AManifestNamingAFileTwiceIsRefused) {
  const fs::path written = write(10);
  std::string manifest;
  {
    std::ifstream in(written / "manifest.yaml");
    manifest.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto line = manifest.find("  envs.state:");
  ASSERT_NE(line, std::string::npos) << manifest;
  const std::string entry = manifest.substr(line, manifest.find('\n', line) + 1 - line);
  manifest.insert(line, entry);
  std::ofstream(written / "manifest.yaml") << manifest;
  EXPECT_NE(error_of(written).find("manifest.yaml lists 'envs.state' twice"), std::string::npos)
      << error_of(written);
}

TEST_F(CheckpointTest, TruncationAtAnyPointIsRefused) {
  const fs::path written = write(10);
  const fs::path file = written / "agent.state";
  const auto size = fs::file_size(file);
  for (const std::uintmax_t cut : {std::uintmax_t{0}, std::uintmax_t{1}, size / 2, size - 1}) {
    fs::resize_file(file, cut);
    EXPECT_NE(error_of(written).find("file 'agent.state' has " + std::to_string(cut) +
                                     " bytes, the manifest says " + std::to_string(size) +
                                     " (truncated or overwritten)"),
              std::string::npos)
        << error_of(written);
  }
  const fs::path manifest = written / "manifest.yaml";
  const auto manifest_size = fs::file_size(manifest);
  for (const std::uintmax_t cut : {manifest_size / 2, manifest_size - 2}) {
    fs::resize_file(manifest, cut);
    EXPECT_NE(error_of(written).find("manifest.yaml"), std::string::npos) << error_of(written);
  }
}

TEST_F(CheckpointTest, FlippedBytesAreRefused) {
  const fs::path written = write(10);
  for (const std::streamoff at : {std::streamoff{0}, std::streamoff{500}, std::streamoff{1001}}) {
    const fs::path copy = run_ / ("copy" + std::to_string(at));
    fs::copy(written, copy);
    std::fstream file(copy / "agent.state", std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(at);
    const char byte = static_cast<char>(file.get());
    file.seekp(at);
    file.put(static_cast<char>(byte ^ 0x10));
    file.close();
    EXPECT_NE(error_of(copy).find("file 'agent.state' is corrupted (CRC-32C"), std::string::npos)
        << error_of(copy);
  }
}

TEST_F(CheckpointTest, ForeignAndIncompleteDirectoriesAreRefused) {
  EXPECT_NE(error_of(run_ / "nowhere").find("no such directory"), std::string::npos);
  EXPECT_NE(error_of(run_).find("no manifest.yaml (not a mnrl checkpoint, or its writing was "
                                "interrupted)"),
            std::string::npos);
  fs::create_directories(run_ / "foreign");
  std::ofstream(run_ / "foreign" / "manifest.yaml") << "name: something else\n";
  EXPECT_NE(error_of(run_ / "foreign").find("is not a mnrl checkpoint manifest"),
            std::string::npos);
  std::ofstream(run_ / "foreign" / "manifest.yaml") << "mnrl_checkpoint: 7\nstep: 1\n";
  EXPECT_NE(error_of(run_ / "foreign").find("checkpoint format 7"), std::string::npos);
  // An earlier mnrl's checkpoint, whose states hold every observation as float32.
  std::ofstream(run_ / "foreign" / "manifest.yaml") << "mnrl_checkpoint: 1\nstep: 1\n";
  EXPECT_NE(error_of(run_ / "foreign").find("checkpoint format 1, this mnrl"), std::string::npos);
  EXPECT_NE(error_of(run_ / "foreign").find("reads format 3: use the mnrl that wrote it"),
            std::string::npos);
  const fs::path written = write(3);
  fs::remove(written / "envs.state");
  EXPECT_NE(error_of(written).find("file 'envs.state' listed in the manifest is missing"),
            std::string::npos);
}

TEST_F(CheckpointTest, LatestSkipsUnusableCheckpointsAndSaysWhy) {
  write(100);
  write(200);
  const fs::path newest = write(300);
  fs::resize_file(newest / "agent.state", 10);
  std::vector<std::string> skipped;
  const Checkpoint latest =
      open_latest_checkpoint(run_, [&](const std::string& why) { skipped.push_back(why); });
  EXPECT_EQ(latest.info().step, 200);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("step_000000000300"), std::string::npos) << skipped[0];

  fs::remove_all(run_ / "checkpoints");
  EXPECT_THROW(open_latest_checkpoint(run_, [](const std::string&) {}), CheckpointError);
}

// An actors-and-learners checkpoint holds rank<r>.actor.state for each actor rank r (from the
// learners on): an actor finds its own; a job of another number of actors is refused, naming
// both; a checkpoint without actors' states (an earlier mnrl's) gives none.
TEST_F(CheckpointTest, ActorStatesAreFoundByRankAndTheirCountChecked) {
  CheckpointWriter writer(run_, {10, "impala", "CartPole-v1", std::nullopt});
  writer.add("agent.state", "learner 0");
  writer.add("rank1.agent.state", "learner 1");
  writer.add("rank2.actor.state", "actor 2");
  writer.add("rank3.actor.state", "actor 3");
  const Checkpoint checkpoint = Checkpoint::open(writer.commit("now"));
  EXPECT_EQ(saved_actor_state(checkpoint, 3, 2, 2), std::optional<std::string>("actor 3"));
  for (const int actors : {1, 3}) {
    try {
      saved_actor_state(checkpoint, 2, 2, actors);
      ADD_FAILURE() << "the states of 2 actors resumed " << actors;
    } catch (const CheckpointError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("2 learner(s) and 2 actor(s); resume it with mpirun -np 4, not " +
                             std::to_string(2 + actors)),
                std::string::npos)
          << message;
    }
  }
  EXPECT_EQ(saved_actor_state(Checkpoint::open(write(20)), 1, 1, 3), std::nullopt);
}

// A checkpoint of pipelines side by side holds each pipeline's stage 0 files: a job of another
// number of pipelines is refused, saying how many ranks to start.
TEST_F(CheckpointTest, APipelinesCheckpointSaysHowManyRanksResumeIt) {
  CheckpointWriter writer(run_, {10, "ppo", "CartPole-v1", std::nullopt});
  writer.add("agent.state", "pipeline 0");
  writer.add("rank1.agent.state", "pipeline 1");
  const Checkpoint checkpoint = Checkpoint::open(writer.commit("now"));
  TrainingParts parts;
  parts.pipeline_stages = 2;  // one pipeline of 2 stages resuming
  LoopState loop;
  try {
    restore_training_checkpoint(checkpoint, {"ppo", "CartPole-v1"}, loop, parts);
    ADD_FAILURE() << "a checkpoint of 2 pipelines resumed in 1";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "was written by 2 pipeline(s) (or data-parallel ranks); with pipelines of 2 "
                  "stages resume it with mpirun -np 4, not 2"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(CheckpointTest, PruneKeepsTheNewest) {
  for (std::int64_t step : {5, 10, 15, 20}) write(step);
  prune_checkpoints(run_, 2);
  const auto left = list_checkpoints(run_);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].filename(), "step_000000000015");
  EXPECT_EQ(left[1].filename(), "step_000000000020");
}

}  // namespace
}  // namespace mnrl::experiments
