// Fast tests of each agent through the training code: a few updates with CleanRL's metric
// names and finite values, and a saved state (agent, envs, replay buffer, LibTorch's generator)
// that goes on exactly as the agent it was saved from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "agents/apex/apex_options.h"
#include "agents/apex/apex_r2d2_options.h"
#include "agents/dqn/dqn.h"
#include "agents/impala/impala.h"
#include "agents/off_policy/continuous_off_policy_agent.h"
#include "agents/r2d2/r2d2.h"
#include "agents/r2d2/r2d2_loss.h"
#include "core/state_stream.h"
#include "experiments/config/experiment_options.h"
#include "experiments/training/actor_loop.h"
#include "experiments/training/agent_factory.h"
#include "experiments/training/env_stepper.h"
#include "experiments/training/training.h"
#include "nn/compute_threads.h"
#include "nn/tensor_state.h"
#include "recording_metrics.h"

namespace mnrl::experiments {
namespace {

struct AgentCase {
  std::string name;
  std::string config;
  std::vector<std::string> overrides;
  std::vector<std::string> statistics;  // names every update reports
};

void PrintTo(const AgentCase& c, std::ostream* out) { *out << c.name; }

class AgentUnitTest : public ::testing::TestWithParam<AgentCase> {};

// Steps `actor` until its agent has updated `updates` times; returns the last update's
// statistics.
std::map<std::string, double> run_updates(EnvStepper& actor, int updates, std::int64_t& step,
                                          std::int64_t total_steps) {
  RecordingMetrics metrics;
  for (int done = 0; done < updates;) {
    actor.step();
    step += actor.num_envs();
    if (actor.update_if_ready(metrics, {step, total_steps})) ++done;
    if (step > 100000) throw std::runtime_error("no update within 100k steps");
  }
  return metrics.last;
}

TEST_P(AgentUnitTest, UpdatesThenASavedStateGoesOnAsTheOriginal) {
  const AgentCase& c = GetParam();
  const ExperimentOptions options =
      load_experiment(std::string(MNRL_SOURCE_DIR "/configs/") + c.config, c.overrides);
  const std::int64_t total = options.train.total_steps;
  auto envs = envs::make_vector_env(options.env, 3);
  envs->reset();
  auto agent = make_agent(options, envs->spec());
  EnvStepper actor(*agent, *envs);
  std::int64_t step = 0;
  const auto first = run_updates(actor, 3, step, total);
  for (const std::string& name : c.statistics) {
    ASSERT_EQ(first.count(name), 1u) << name;
    EXPECT_TRUE(std::isfinite(first.at(name))) << name << " = " << first.at(name);
  }

  core::StateWriter agent_state, env_state, replay_state, generator;
  agent->save_state(agent_state);
  envs->save_state(env_state);
  agent->save_replay(replay_state);

  auto copy_envs = envs::make_vector_env(options.env, 99);
  auto copy = make_agent(options, copy_envs->spec());
  core::StateReader agent_in(agent_state.bytes(), "agent state");
  copy->load_state(agent_in);
  core::StateReader envs_in(env_state.bytes(), "env state");
  ASSERT_TRUE(copy_envs->load_state(envs_in));
  core::StateReader replay_in(replay_state.bytes(), "replay");
  copy->load_replay(replay_in);
  replay_in.expect_end();

  // After the copy is built (its initialization draws from LibTorch's generator).
  nn::save_torch_rng(generator);
  std::int64_t original_step = step, copy_step = step;
  const auto original_next = run_updates(actor, 1, original_step, total);
  core::StateReader generator_in(generator.bytes(), "generator");
  nn::load_torch_rng(generator_in);
  EnvStepper copy_actor(*copy, *copy_envs);
  const auto copy_next = run_updates(copy_actor, 1, copy_step, total);
  EXPECT_EQ(copy_step, original_step);
  for (const std::string& name : c.statistics) {
    EXPECT_EQ(copy_next.at(name), original_next.at(name)) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Agents, AgentUnitTest,
    ::testing::Values(
        AgentCase{"ppo",
                  "cartpole_ppo.yaml",
                  {},
                  {"losses/policy_loss", "losses/value_loss", "losses/entropy", "losses/approx_kl",
                   "losses/clipfrac", "losses/explained_variance", "charts/learning_rate",
                   "charts/clip_range"}},
        AgentCase{"ppo_gsde_box",
                  "pendulum_ppo.yaml",
                  {"ppo.n_steps=32", "ppo.batch_size=64"},
                  {"losses/policy_loss", "losses/value_loss", "losses/entropy"}},
        AgentCase{
            "a2c",
            "cartpole_a2c.yaml",
            {},
            {"losses/policy_loss", "losses/value_loss", "losses/entropy", "charts/learning_rate"}},
        AgentCase{"dqn",
                  "cartpole_dqn.yaml",
                  {"dqn.learning_starts=64"},
                  {"losses/td_loss", "losses/q_values", "charts/epsilon"}},
        AgentCase{
            "r2d2",
            "cartpole_novel_r2d2.yaml",
            {"r2d2.learning_starts=64", "r2d2.batch_size=8", "network.recurrent.hidden_size=16"},
            {"losses/td_loss", "losses/q_values", "charts/epsilon"}},
        // One process: one actor, its epsilon fixed, an update every steps_per_update steps.
        AgentCase{"apex_r2d2",
                  "cartpole_novel_apex_r2d2.yaml",
                  {"apex_r2d2.learning_starts=64", "apex_r2d2.batch_size=8",
                   "network.recurrent.hidden_size=16"},
                  {"losses/td_loss", "losses/q_values", "charts/epsilon"}},
        // One process: one actor, its epsilon fixed, every transition prioritized.
        AgentCase{"apex_dqn",
                  "cartpole_apex.yaml",
                  {"apex_dqn.learning_starts=64"},
                  {"losses/td_loss", "losses/q_values", "charts/epsilon"}},
        AgentCase{"impala",
                  "cartpole_impala.yaml",
                  {},
                  {"losses/policy_loss", "losses/value_loss", "losses/entropy"}},
        AgentCase{"dqn_prioritized_n_step_dueling",
                  "cartpole_rainbowlite.yaml",
                  {"dqn.learning_starts=64"},
                  {"losses/td_loss", "losses/q_values"}},
        // Pixels: a convolutional encoder over uint8 observations (bytes in the replay buffer).
        AgentCase{"dqn_minatar_cnn",
                  "minatar_breakout_dqn.yaml",
                  {"dqn.learning_starts=64", "dqn.double_q=true"},
                  {"losses/td_loss", "losses/q_values", "charts/epsilon"}},
        AgentCase{
            "ppo_minatar_cnn",
            "minatar_breakout_ppo.yaml",
            {"ppo.n_steps=16", "ppo.batch_size=64"},
            {"losses/policy_loss", "losses/value_loss", "losses/entropy", "losses/approx_kl"}},
        AgentCase{"a2c_minatar_cnn",
                  "cartpole_a2c.yaml",
                  {"env.id=MinAtar/Breakout-v1", "network.encoder=minatar_cnn",
                   "network.hidden_sizes=[]", "network.activation=relu"},
                  {"losses/policy_loss", "losses/value_loss", "losses/entropy"}},
        // Updates every 100 env steps, which is when off-policy agents report statistics.
        AgentCase{"sac",
                  "pendulum_sac.yaml",
                  {"sac.learning_starts=99", "sac.train_freq=100", "sac.gradient_steps=3",
                   "sac.batch_size=32", "network.hidden_sizes=[32,32]"},
                  {"losses/qf1_values", "losses/qf2_values", "losses/qf1_loss", "losses/qf2_loss",
                   "losses/qf_loss", "losses/actor_loss", "losses/alpha", "losses/alpha_loss",
                   "charts/buffer_size"}},
        AgentCase{"sac_fixed_alpha_n_step",
                  "pendulum_sac.yaml",
                  {"sac.learning_starts=99", "sac.train_freq=100", "sac.gradient_steps=2",
                   "sac.batch_size=32", "sac.ent_coef=0.2", "sac.n_step=3", "env.num_envs=2",
                   "network.hidden_sizes=[32,32]"},
                  {"losses/qf1_loss", "losses/actor_loss", "losses/alpha"}},
        AgentCase{"sac_gsde",
                  "mountaincarcontinuous_sac.yaml",
                  {"sac.train_freq=100", "sac.gradient_steps=2", "sac.batch_size=32",
                   "sac.sde_sample_freq=7"},
                  {"losses/qf1_loss", "losses/actor_loss", "losses/alpha"}},
        AgentCase{"td3_ornstein_uhlenbeck",
                  "pendulum_td3.yaml",
                  {"td3.learning_starts=99", "td3.train_freq=100", "td3.gradient_steps=4",
                   "td3.batch_size=32", "td3.action_noise=ornstein_uhlenbeck",
                   "network.hidden_sizes=[32,32]"},
                  {"losses/qf1_values", "losses/qf2_values", "losses/qf1_loss", "losses/qf2_loss",
                   "losses/qf_loss", "losses/actor_loss", "charts/buffer_size"}},
        AgentCase{"ddpg",
                  "pendulum_ddpg.yaml",
                  {"ddpg.learning_starts=99", "ddpg.train_freq=100", "ddpg.gradient_steps=2",
                   "ddpg.batch_size=32", "network.hidden_sizes=[32,32]"},
                  {"losses/qf1_values", "losses/qf1_loss", "losses/actor_loss"}}),
    [](const ::testing::TestParamInfo<AgentCase>& info) { return info.param.name; });

// A saved IMPALA state says how many envs its rollout holds (a learner's batch is wider than
// an actor's) before its arrays: a count that cannot be is refused before any allocation.
TEST(ImpalaStateTest, ARolloutWidthOutOfBoundsIsRefused) {
  const ExperimentOptions options =
      load_experiment(std::string(MNRL_SOURCE_DIR "/configs/cartpole_impala.yaml"), {});
  auto envs = envs::make_vector_env(options.env, 3);
  auto agent = make_agent(options, envs->spec());
  for (const std::int64_t envs_saved : {std::int64_t{0}, std::int64_t{1} << 40}) {
    core::StateWriter damaged;
    damaged.tag("impala");
    damaged.value(envs_saved);
    core::StateReader in(damaged.bytes(), "damaged.state");
    try {
      agent->load_state(in);
      ADD_FAILURE() << "a rollout of " << envs_saved << " envs was read";
    } catch (const core::StateError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("damaged.state"), std::string::npos) << message;
      EXPECT_NE(message.find("a rollout of " + std::to_string(envs_saved) + " envs"),
                std::string::npos)
          << message;
    }
  }
}

// An IMPALA or Ape-X actor's state, as a checkpoint keeps it, carries on where it was saved
// in an actor of another rank (other seeds, other initial parameters): the same episodes and
// the same draws.
TEST(ActorStateTest, AnActorCarriesOnFromItsSavedState) {
  // Steps an actor as its loop does (an IMPALA actor's full rollout goes into a message),
  // appending what its envs observe to `seen`.
  const auto act = [](Actor& actor, EnvStepper& stepper, int steps, std::vector<float>& seen) {
    const auto floats = static_cast<std::size_t>(
        envs::flat_size(actor.envs->spec().observation_space) * actor.envs->num_envs());
    auto* impala = dynamic_cast<agents::Impala*>(actor.agent.get());
    std::vector<float> message(
        impala ? static_cast<std::size_t>(impala->trajectory_floats(actor.envs->num_envs())) : 0);
    for (int step = 0; step < steps; ++step) {
      stepper.step();
      if (impala && impala->update_ready()) impala->pack_trajectory(message.data());
      const float* row = actor.envs->observations().floats();
      seen.insert(seen.end(), row, row + floats);
    }
  };
  for (const char* config : {"cartpole_impala.yaml", "cartpole_apex.yaml"}) {
    SCOPED_TRACE(config);
    const ExperimentOptions options =
        load_experiment(std::string(MNRL_SOURCE_DIR "/configs/") + config, {});
    Actor saved = make_actor(options, 1, nullptr);
    saved.envs->reset();
    EnvStepper saved_stepper(*saved.agent, *saved.envs);
    std::vector<float> before, expected, observed;
    act(saved, saved_stepper, 7, before);
    const std::string state = save_actor_state(*saved.agent, *saved.envs);
    act(saved, saved_stepper, 70, expected);

    Actor resumed = make_actor(options, 2, nullptr);
    resumed.envs->reset();
    ASSERT_TRUE(load_actor_state(state, "actor.state", *resumed.agent, *resumed.envs));
    EnvStepper resumed_stepper(*resumed.agent, *resumed.envs);
    act(resumed, resumed_stepper, 70, observed);
    EXPECT_EQ(observed, expected);

    // Another algorithm's actor state is refused, naming where it came from.
    const ExperimentOptions other = load_experiment(
        std::string(MNRL_SOURCE_DIR "/configs/") + (std::string(config) == "cartpole_impala.yaml"
                                                        ? "cartpole_apex.yaml"
                                                        : "cartpole_impala.yaml"),
        {});
    Actor foreign = make_actor(other, 1, nullptr);
    try {
      load_actor_state(state, "rank 3's actor.state", *foreign.agent, *foreign.envs);
      ADD_FAILURE() << "another algorithm's actor state was read";
    } catch (const core::StateError& e) {
      EXPECT_NE(std::string(e.what()).find("rank 3's actor.state"), std::string::npos) << e.what();
    }
  }
}

// Ape-X's actors explore with epsilon^(1 + alpha i/(N-1)): 0.4 to 0.4^8 by default.
TEST(ApexTest, ActorsExploreWithTheirOwnEpsilons) {
  const agents::ApexOptions apex;
  EXPECT_DOUBLE_EQ(apex.actors.actor_epsilon(0, 1), 0.4);
  EXPECT_DOUBLE_EQ(apex.actors.actor_epsilon(0, 3), 0.4);
  EXPECT_DOUBLE_EQ(apex.actors.actor_epsilon(1, 3), std::pow(0.4, 4.5));
  EXPECT_DOUBLE_EQ(apex.actors.actor_epsilon(2, 3), std::pow(0.4, 8.0));
}

// An actor's initial priorities are |y - Q(s, a)|, y = r + discount max_a' Q(s', a') unless
// terminal. With rewards above any Q-value of a fresh network, for one (s, a): two terminal
// transitions differ by their rewards' difference; a discount of 0 bootstraps nothing, as a
// terminal transition; and the bootstrap of s' = s is linear in the discount.
TEST(ApexTest, ActorsMeasureTheTdErrorsOfTheirTransitions) {
  const ExperimentOptions options =
      load_experiment(std::string(MNRL_SOURCE_DIR "/configs/cartpole_apex.yaml"), {});
  auto envs = envs::make_vector_env(options.env, 3);
  auto agent = make_agent(options, envs->spec());
  auto& dqn = dynamic_cast<agents::Dqn&>(*agent);
  replay::TransitionBatch batch;
  const std::vector<float> observation{0.1f, -0.2f, 0.03f, 0.4f}, next{0.2f, 0.1f, -0.3f, 0.5f};
  for (int row = 0; row < 5; ++row) {
    batch.observations.insert(batch.observations.end(), observation.begin(), observation.end());
    const auto& following = row < 3 ? next : observation;
    batch.next_observations.insert(batch.next_observations.end(), following.begin(),
                                   following.end());
  }
  batch.actions = {1, 1, 1, 1, 1};
  batch.rewards = {1000, 2000, 1000, 1000, 1000};
  batch.terminated = {1, 1, 0, 0, 0};
  batch.discounts = {0.99f, 0.99f, 0.0f, 1.0f, 0.5f};
  std::vector<float> td_errors(5);
  dqn.measure_td_errors(batch, td_errors.data());
  EXPECT_NEAR(td_errors[1] - td_errors[0], 1000.0f, 1e-3f);
  EXPECT_EQ(td_errors[2], td_errors[0]);
  const float max_q = td_errors[3] - td_errors[0];  // max_a Q(s, a)
  EXPECT_GT(std::abs(max_q), 1e-6f);
  EXPECT_NEAR(td_errors[4] - td_errors[0], 0.5f * max_q, 1e-3f);
}

// A learner refuses a transition an actor sent whose action is not one of its network's (a
// damaged message), and one whose priority is not finite, storing neither.
TEST(ApexTest, ALearnerRefusesDamagedTransitions) {
  const ExperimentOptions options =
      load_experiment(std::string(MNRL_SOURCE_DIR "/configs/cartpole_apex.yaml"), {});
  auto envs = envs::make_vector_env(options.env, 3);
  auto agent = make_agent(options, envs->spec());
  auto& dqn = dynamic_cast<agents::Dqn&>(*agent);
  const std::vector<float> observation{0.1f, -0.2f, 0.03f, 0.4f};
  for (const float action : {2.0f, -1.0f, 0.5f, std::nanf("")}) {
    const replay::Transition transition{observation.data(), &action, 1.0f, observation.data()};
    try {
      dqn.add_transition(transition, 1.0f);
      ADD_FAILURE() << "action " << action << " was stored";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("(the network has 2)"), std::string::npos) << e.what();
    }
  }
  const float action = 1.0f;
  const replay::Transition transition{observation.data(), &action, 1.0f, observation.data()};
  EXPECT_THROW(dqn.add_transition(transition, std::nanf("")), std::invalid_argument);
  EXPECT_EQ(dqn.replay_size(), 0);
  dqn.add_transition(transition, 1.0f);
  EXPECT_EQ(dqn.replay_size(), 1);
}

// Ape-X's R2D2: an actor's replay is an outbox; the sequences it takes carry the priority
// R2D2's loss gives them under the actor's network. With every parameter zero (all outputs 0)
// and priority_eta 1, a sequence's priority is h (value rescaling) of its largest n-step
// discounted reward sum over its trained steps (bootstrapping adds 0). A learner stores them and
// refuses a sequence whose action is not one of its network's, storing nothing.
TEST(ApexTest, R2d2ActorsSendSequencesWithTheirPriorities) {
  const std::int64_t burn_in = 2, length = 6, n_step = 3;
  const double gamma = 0.9;
  const ExperimentOptions options = load_experiment(
      std::string(MNRL_SOURCE_DIR "/configs/cartpole_novel_apex_r2d2.yaml"),
      {"apex_r2d2.burn_in=2", "apex_r2d2.seq_len=4", "apex_r2d2.period=3", "apex_r2d2.send_size=5",
       "apex_r2d2.n_step=3", "apex_r2d2.gamma=0.9", "apex_r2d2.priority_eta=1",
       "network.recurrent.hidden_size=16", "env.num_envs=2"});
  ExperimentOptions actor_options = options;
  actor_options.hyperparameters<agents::ApexR2d2Options>().as_actor(options.env.num_envs);
  auto envs = envs::make_vector_env(options.env, 3);
  envs->reset();
  auto actor_agent = make_agent(actor_options, envs->spec());
  auto& actor = dynamic_cast<agents::R2d2&>(*actor_agent);
  {
    torch::NoGradGuard no_grad;
    const_cast<at::Tensor&>(actor.parameters()).zero_();
  }
  EnvStepper stepper(actor, *envs);
  while (actor.sequences_waiting() < 5) stepper.step();
  const std::int64_t row = actor.sequence_floats();
  const std::int64_t observations = (length + 1) * 4;  // CartPoleNoVel: velocities zeroed
  ASSERT_GT(row, observations + 2 * length + 4);       // and the memory
  std::vector<float> rows(static_cast<std::size_t>(5 * row));
  actor.take_sequences(5, rows.data());
  EXPECT_LT(actor.sequences_waiting(), options.env.num_envs);
  for (std::int64_t k = 0; k < 5; ++k) {
    const float* sequence = &rows[static_cast<std::size_t>(k * row)];
    const float* rewards = sequence + observations + length;
    const float* tail = sequence + row - 4;  // steps, terminated, episode start, priority
    const auto steps = static_cast<std::int64_t>(tail[0]);
    double largest = 0.0;
    for (std::int64_t t = tail[2] != 0.0f ? 0 : burn_in; t < steps; ++t) {
      double sum = 0.0, discount = 1.0;
      for (std::int64_t i = t; i < std::min(t + n_step, steps); ++i, discount *= gamma) {
        sum += discount * rewards[i];
      }
      largest = std::max(largest, sum);
    }
    EXPECT_NEAR(tail[3], agents::rescaled_value(largest), 1e-5)
        << "sequence " << k << " of " << steps << " steps";
  }

  auto learner_agent = make_agent(options, envs->spec());
  auto& learner = dynamic_cast<agents::R2d2&>(*learner_agent);
  learner.add_sequences(rows.data(), 5);
  EXPECT_EQ(learner.replay_size(), 5);
  std::vector<float> damaged(rows.begin(), rows.begin() + row);
  for (const float action : {2.0f, -1.0f, 0.5f}) {
    damaged[static_cast<std::size_t>(observations + 1)] = action;
    try {
      learner.add_sequences(damaged.data(), 1);
      ADD_FAILURE() << "action " << action << " was stored";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("(the network has 2)"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(learner.replay_size(), 5);
}

// lr_schedule: linear (here rl-zoo's lin_<x>) sets every optimizer's step size before each
// update to x * progress_remaining, and reports it as charts/learning_rate: DQN (and Ape-X in
// one process, through the DQN agent), SAC, TD3 and DDPG.
TEST(LearningRateScheduleTest, OptimizersFollowTheLinearSchedule) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"cartpole_dqn.yaml", {"dqn.learning_rate=lin_2e-3", "dqn.learning_starts=64"}},
      {"cartpole_apex.yaml", {"apex_dqn.learning_rate=lin_2e-3", "apex_dqn.learning_starts=64"}},
      {"pendulum_sac.yaml",
       {"sac.learning_rate=lin_2e-3", "sac.learning_starts=99", "sac.train_freq=100",
        "sac.batch_size=32", "network.hidden_sizes=[32,32]"}},
      {"pendulum_td3.yaml",
       {"td3.learning_rate=lin_2e-3", "td3.learning_starts=99", "td3.train_freq=100",
        "td3.batch_size=32", "network.hidden_sizes=[32,32]"}},
      {"pendulum_ddpg.yaml",
       {"ddpg.learning_rate=2e-3", "ddpg.lr_schedule=linear", "ddpg.learning_starts=99",
        "ddpg.train_freq=100", "ddpg.batch_size=32", "network.hidden_sizes=[32,32]"}}};
  const std::int64_t total = 1000;
  for (const auto& [config, overrides] : cases) {
    SCOPED_TRACE(config);
    const ExperimentOptions options =
        load_experiment(std::string(MNRL_SOURCE_DIR "/configs/") + config, overrides);
    auto envs = envs::make_vector_env(options.env, 3);
    envs->reset();
    auto agent = make_agent(options, envs->spec());
    EnvStepper actor(*agent, *envs);
    std::int64_t step = 0;
    const auto statistics = run_updates(actor, 3, step, total);
    // The last update's progress_remaining was 1 - step / total.
    const double expected = 2e-3 * (1.0 - static_cast<double>(step) / total);
    ASSERT_LT(step, total);
    ASSERT_EQ(statistics.count("charts/learning_rate"), 1u);
    EXPECT_DOUBLE_EQ(statistics.at("charts/learning_rate"), expected);
    std::vector<double> rates;
    if (const auto* dqn = dynamic_cast<const agents::Dqn*>(agent.get())) {
      rates = {dqn->learning_rate()};
    } else {
      rates = dynamic_cast<const agents::ContinuousOffPolicyAgent&>(*agent).learning_rates();
    }
    ASSERT_FALSE(rates.empty());
    for (const double rate : rates) EXPECT_DOUBLE_EQ(rate, expected);
  }
}

// Same seed, same everything: training is deterministic in one process.
TEST(PpoDeterminismTest, SameSeedGivesSameLosses) {
  const auto options = load_experiment(MNRL_SOURCE_DIR "/configs/cartpole_ppo.yaml",
                                       {"train.total_steps=2048", "train.eval_episodes=2"});
  RecordingMetrics a, b;
  train(options, a);
  train(options, b);
  EXPECT_EQ(a.last["losses/value_loss"], b.last["losses/value_loss"]);
  EXPECT_EQ(a.last["losses/policy_loss"], b.last["losses/policy_loss"]);
  EXPECT_EQ(a.last["eval/mean_return"], b.last["eval/mean_return"]);
}

// train.threads splits gradient steps into pieces that compute what one thread computes
// (nn/compute_threads.h): two threads train exactly as one.
TEST(LearnerThreadsTest, TwoThreadsTrainExactlyAsOne) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"cartpole_dqn.yaml",
       {"train.total_steps=3000", "dqn.learning_starts=64", "dqn.double_q=true",
        "network.dueling=true"}},
      {"cartpole_ppo.yaml", {"train.total_steps=2048"}},
      {"cartpole_ppo.yaml", {"train.total_steps=2048", "network.shared_trunk=true"}},
      // Twin critics and the actor are the pieces; 64-row batches of 256-wide layers are worth
      // a second thread.
      {"pendulum_sac.yaml",
       {"train.total_steps=700", "sac.learning_starts=300", "sac.batch_size=64"}},
      {"pendulum_td3.yaml",
       {"train.total_steps=700", "td3.learning_starts=300", "td3.batch_size=64"}}};
  for (const auto& [config, overrides] : cases) {
    std::map<int, RecordingMetrics> by_threads;
    for (const int threads : {1, 2}) {
      auto with_threads = overrides;
      with_threads.push_back("train.eval_episodes=2");
      with_threads.push_back("train.threads=" + std::to_string(threads));
      train(load_experiment(std::string(MNRL_SOURCE_DIR "/configs/") + config, with_threads),
            by_threads[threads]);
    }
    nn::set_compute_threads(1);
    const auto& one = by_threads[1].last;
    const auto& two = by_threads[2].last;
    ASSERT_FALSE(one.empty());
    for (const auto& [name, value] : one) {
      if (name.rfind("charts/SPS", 0) == 0 || name.rfind("charts/time", 0) == 0) continue;
      ASSERT_EQ(two.count(name), 1u) << config << ": " << name;
      EXPECT_EQ(two.at(name), value) << config << ": " << name;
    }
  }
}

// The paths the CartPole config leaves off: shuffled minibatches, an entropy bonus, value
// clipping and constant schedules.
TEST(PpoOptionsTest, ShuffledMinibatchesWithEntropyAndValueClipTrain) {
  const auto options = load_experiment(
      MNRL_SOURCE_DIR "/configs/cartpole_ppo.yaml",
      {"train.total_steps=4096", "train.eval_episodes=2", "ppo.batch_size=64", "ppo.ent_coef=0.01",
       "ppo.clip_range_vf=0.2", "ppo.lr_schedule=constant", "ppo.clip_range_schedule=constant"});
  RecordingMetrics metrics;
  const TrainingResult result = train(options, metrics);
  EXPECT_EQ(result.steps, 4096);
  EXPECT_EQ(metrics.count["losses/policy_loss"], 4096 / 256);
  EXPECT_EQ(metrics.last["charts/learning_rate"], 1e-3);
  EXPECT_EQ(metrics.last["charts/clip_range"], 0.2);
  EXPECT_GT(metrics.last["losses/entropy"], 0.0);
  EXPECT_GT(metrics.last["losses/clipfrac"],
            0.0);  // several epochs of 4 minibatches move the policy
  EXPECT_TRUE(std::isfinite(metrics.last["losses/value_loss"]));
}

}  // namespace
}  // namespace mnrl::experiments
