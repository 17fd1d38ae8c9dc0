#include "experiments/runs/run_info.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/runs/training_run.h"

namespace mnrl::experiments {
namespace {

RunInfo resumed_twice() {
  RunInfo info;
  info.command = "mnrl train a.yaml --set 'name=\"x\"'\nsecond line";  // quotes and a newline
  info.launch = {4, "mpirun -np 4 mnrl train a.yaml"};
  info.mnrl_version = "0.1.0";
  info.source_revision = "abc123";
  info.blas = "OpenBLAS 0.3.21 (Haswell)";
  info.physics = "Box2D 2.4.1, MuJoCo 2.2.2";
  info.started = "2026-11-24T10:00:00Z";
  info.env_plugin = PluginRecord{"/p/libwalk.so", "0a1b2c3d"};
  ResumeRecord first;
  first.command = "mnrl train --resume out";
  first.launch.ranks = 1;
  first.from_checkpoint = "out/checkpoints/step_000000000512";
  first.started = "2026-11-24T11:00:00Z";
  info.resumed.push_back(first);
  ResumeRecord second;
  second.command = "mnrl train --resume out --allow-changes";
  second.launch = {2, "srun: Slurm job 7 step 0, 2 tasks on 1 nodes"};
  second.from_checkpoint = "out/checkpoints/step_000000001024";
  second.started = "2026-11-24T12:00:00Z";
  second.env_plugin = PluginRecord{"/p/libwalk.so", "ffffffff"};
  second.config_changes = {{"ppo.learning_rate", "0.001", "0.002"},
                           {"env.wrappers[1].num_frames", "(absent)", "4"}};
  info.resumed.push_back(second);
  return info;
}

void expect_same(const RunInfo& a, const RunInfo& b) {
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.launch.ranks, b.launch.ranks);
  EXPECT_EQ(a.launch.launch, b.launch.launch);
  EXPECT_EQ(a.mnrl_version, b.mnrl_version);
  EXPECT_EQ(a.source_revision, b.source_revision);
  EXPECT_EQ(a.blas, b.blas);
  EXPECT_EQ(a.physics, b.physics);
  EXPECT_EQ(a.started, b.started);
  EXPECT_EQ(a.env_plugin, b.env_plugin);
  ASSERT_EQ(a.resumed.size(), b.resumed.size());
  for (std::size_t i = 0; i < a.resumed.size(); ++i) {
    EXPECT_EQ(a.resumed[i].command, b.resumed[i].command);
    EXPECT_EQ(a.resumed[i].launch.ranks, b.resumed[i].launch.ranks);
    EXPECT_EQ(a.resumed[i].launch.launch, b.resumed[i].launch.launch);
    EXPECT_EQ(a.resumed[i].from_checkpoint, b.resumed[i].from_checkpoint);
    EXPECT_EQ(a.resumed[i].started, b.resumed[i].started);
    EXPECT_EQ(a.resumed[i].env_plugin, b.resumed[i].env_plugin);
    ASSERT_EQ(a.resumed[i].config_changes.size(), b.resumed[i].config_changes.size());
    for (std::size_t k = 0; k < a.resumed[i].config_changes.size(); ++k) {
      EXPECT_EQ(a.resumed[i].config_changes[k].key, b.resumed[i].config_changes[k].key);
      EXPECT_EQ(a.resumed[i].config_changes[k].before, b.resumed[i].config_changes[k].before);
      EXPECT_EQ(a.resumed[i].config_changes[k].after, b.resumed[i].config_changes[k].after);
    }
  }
}

TEST(RunInfoTest, WrittenAndReadBackUnchanged) {
  const RunInfo info = resumed_twice();
  const std::string yaml = run_info_yaml(info);
  expect_same(parse_run_info(yaml, "run_info.yaml"), info);
  // Strings stay strings for any YAML reader: "0.001" is not turned into a number.
  EXPECT_NE(yaml.find("\"ppo.learning_rate\": {before: \"0.001\", after: \"0.002\"}"),
            std::string::npos)
      << yaml;
}

// What mnrl wrote before run_info.yaml went through yaml-cpp still reads, and resumes append.
TEST(RunInfoTest, ReadsTheFormatOfEarlierVersions) {
  const std::string earlier =
      "command: \"mnrl train walk.yaml\"\nmnrl_version: \"0.1.0\"\nsource_revision: \"abc\"\n"
      "blas: \"OpenBLAS\"\nstarted: \"2026-11-20T09:00:00Z\"\n"
      "env_plugin: {path: \"/p/libwalk.so\", crc32c: \"0a1b2c3d\"}\n"
      "resumed:\n  - command: \"mnrl train --resume out\"\n"
      "    from_checkpoint: \"out/checkpoints/step_000000000512\"\n"
      "    started: \"2026-11-20T10:00:00Z\"\n    config_changes:\n"
      "      \"train.total_steps\": {before: \"512\", after: \"1024\"}\n";
  const RunInfo info = parse_run_info(earlier, "run_info.yaml");
  EXPECT_EQ(info.command, "mnrl train walk.yaml");
  EXPECT_EQ(info.launch.ranks, 0);  // not recorded then
  ASSERT_EQ(info.resumed.size(), 1u);
  ASSERT_EQ(info.resumed[0].config_changes.size(), 1u);
  EXPECT_EQ(info.resumed[0].config_changes[0].after, "1024");
  EXPECT_TRUE(info.trained_with({"/p/libwalk.so", "0a1b2c3d"}));
  EXPECT_FALSE(info.trained_with({"/p/libwalk.so", "ffffffff"}));
}

TEST(RunInfoTest, ThePluginToCompareWithIsTheLastOneRecorded) {
  const RunInfo info = resumed_twice();
  EXPECT_TRUE(info.trained_with({"/p/libwalk.so", "ffffffff"}));
  EXPECT_FALSE(info.trained_with({"/p/libwalk.so", "0a1b2c3d"}));
}

TEST(RunInfoTest, TextThatIsNotRunInformationIsRefusedNamingTheFile) {
  for (const char* text : {"- a\n- b\n", "command: [unclosed\n", "resumed: [1, 2]\n"}) {
    try {
      parse_run_info(text, "out/run_info.yaml");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("out/run_info.yaml: "), std::string::npos) << e.what();
    }
  }
}

// run_info.yaml recorded neither the job's ranks nor how it was launched.
TEST(RunInfoTest, DescribesTheLauncher) {
  const auto launch = [](const std::map<std::string, std::string>& variables,
                         const std::vector<std::string>& parent) {
    return describe_launch(
        [&](const char* name) {
          const auto it = variables.find(name);
          return it == variables.end() ? nullptr : it->second.c_str();
        },
        parent);
  };
  EXPECT_EQ(launch({}, {"bash"}), "");
  EXPECT_EQ(launch({{"OMPI_COMM_WORLD_SIZE", "4"}},
                   {"/usr/bin/mpirun", "--oversubscribe", "-np", "4", "mnrl", "train", "a b.yaml"}),
            "/usr/bin/mpirun --oversubscribe -np 4 mnrl train 'a b.yaml'");
  EXPECT_EQ(launch({{"OMPI_COMM_WORLD_SIZE", "4"}}, {"orted"}),
            "an MPI launcher (OMPI_COMM_WORLD_SIZE=4)");
  EXPECT_EQ(launch({{"SLURM_JOB_ID", "812"},
                    {"SLURM_STEP_ID", "0"},
                    {"SLURM_STEP_NUM_TASKS", "4"},
                    {"SLURM_STEP_NUM_NODES", "2"},
                    {"PMIX_RANK", "0"}},
                   {"slurmstepd: [812.0]"}),
            "srun: Slurm job 812 step 0, 4 tasks on 2 nodes");
}

// The first line said "8 envs x 3 ranks" of an IMPALA job whose learner steps no envs.
TEST(JobLayoutTest, SaysWhichRanksLearnAndWhichStepEnvs) {
  const auto layout = [](const std::string& algo, int ranks, const std::string& more = "") {
    return job_layout(
        parse_experiment("algo: " + algo + "\nenv: {id: CartPole-v1, num_envs: 8}\n" + more,
                         "x.yaml"),
        ranks, "mpi");
  };
  EXPECT_EQ(layout("ppo", 1), "8 envs");
  EXPECT_EQ(layout("ppo", 4), "8 envs x 4 ranks (mpi)");
  EXPECT_EQ(layout("impala", 4), "1 learner (rank 0) + 3 actors x 8 envs (mpi)");
  EXPECT_EQ(layout("apex_dqn", 6, "distributed: {learners: 2}\n"),
            "2 learners (ranks 0-1) + 4 actors x 8 envs (mpi)");
  EXPECT_EQ(layout("a3c", 2), "1 parameter server (rank 0) + 1 worker x 8 envs (mpi)");
  EXPECT_EQ(layout("ppo", 2, "distributed: {pipeline_stages: 2}\n"),
            "1 pipeline of 2 stages, stage 0 acting (rank 0) x 8 envs (mpi)");
  EXPECT_EQ(layout("ppo", 6, "distributed: {pipeline_stages: 3}\n"),
            "2 pipelines of 3 stages, stage 0 acting (ranks 0, 3) x 8 envs (mpi)");
}

}  // namespace
}  // namespace mnrl::experiments
