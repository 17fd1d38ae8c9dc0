// Pipelines across ranks: the partition, the schedules, and GPipe's and PipeDream's arithmetic
// against the unsplit network (every rank builds it as reference, so each stage checks its own
// blocks). Under mpirun with 2 and 4 ranks the stages are real ranks; in one process K = 1.
#include <gtest/gtest.h>

#include <ATen/ops/randn.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "distributed/pipeline/pipeline_schedule.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/pipeline/stage_partition.h"
#include "test_communicator.h"

namespace mnrl::distributed {
namespace {

using Kind = PipelineOperation::Kind;

TEST(StagePartitionTest, StagesBalanceTheirParameterCounts) {
  EXPECT_EQ(partition_by_parameters({4, 4, 4, 4}, 2),
            (std::vector<StageRange>{{0, 2}, {2, 4}}));
  EXPECT_EQ(partition_by_parameters({10, 1, 1, 1, 1, 10}, 3),
            (std::vector<StageRange>{{0, 1}, {1, 5}, {5, 6}}));
  // 9 | 3 3 3 | 3 and 9 | 3 3 | 3 3 both have 9 as their largest; the stages after the first
  // are balanced among themselves too.
  EXPECT_EQ(partition_by_parameters({9, 3, 3, 3, 3}, 3),
            (std::vector<StageRange>{{0, 1}, {1, 3}, {3, 5}}));
  // Ties go to the longer first stage: 2 2 | 2 over 2 | 2 2.
  EXPECT_EQ(partition_by_parameters({2, 2, 2}, 2), (std::vector<StageRange>{{0, 2}, {2, 3}}));
  EXPECT_EQ(partition_by_parameters({5, 7}, 1), (std::vector<StageRange>{{0, 2}}));
  EXPECT_EQ(partition_by_parameters({1, 2, 3}, 3),
            (std::vector<StageRange>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_THROW(partition_by_parameters({1, 2}, 3), std::invalid_argument);
  EXPECT_THROW(partition_by_parameters({1, 2}, 0), std::invalid_argument);
}

TEST(StagePartitionTest, ExplicitBoundariesAreChecked) {
  EXPECT_EQ(partition_at({2, 3}, 5), (std::vector<StageRange>{{0, 2}, {2, 3}, {3, 5}}));
  EXPECT_EQ(partition_at({}, 4), (std::vector<StageRange>{{0, 4}}));
  EXPECT_THROW(partition_at({0}, 4), std::invalid_argument);
  EXPECT_THROW(partition_at({2, 2}, 4), std::invalid_argument);
  try {
    partition_at({1, 4}, 4);
    FAIL() << "a boundary at the end of the network was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "boundary 2 (4) must be above the one before it (1) and below the 4 blocks of "
                 "the network");
  }
}

TEST(PipelineScheduleTest, OneForwardOneBackwardFillsThenAlternates) {
  const auto f = [](int m) { return PipelineOperation{Kind::kForward, m}; };
  const auto b = [](int m) { return PipelineOperation{Kind::kBackward, m}; };
  const auto pipedream = PipelineSchedule::kOneForwardOneBackward;
  EXPECT_EQ(stage_operations(pipedream, 0, 4, 6),
            (std::vector<PipelineOperation>{f(0), f(1), f(2), f(3), b(0), f(4), b(1), f(5),
                                            b(2), b(3), b(4), b(5)}));
  EXPECT_EQ(stage_operations(pipedream, 3, 4, 3),
            (std::vector<PipelineOperation>{f(0), b(0), f(1), b(1), f(2), b(2)}));
  EXPECT_EQ(stage_operations(pipedream, 0, 4, 2),
            (std::vector<PipelineOperation>{f(0), f(1), b(0), b(1)}));
  EXPECT_EQ(stage_operations(PipelineSchedule::kGpipe, 1, 3, 2),
            (std::vector<PipelineOperation>{f(0), f(1), b(0), b(1)}));
  EXPECT_EQ(pipeline_schedule_named("1f1b"), pipedream);
  EXPECT_THROW(pipeline_schedule_named("pipedream"), std::invalid_argument);
}

// Every stage runs its operations in order, an operation waiting for what it receives: a
// forward for the stage before's forward, a backward for the stage after's backward. Whatever
// K, M and schedule, all of them finish (no stage waits for one that waits for it).
TEST(PipelineScheduleTest, NoStageWaitsForeverOnAnother) {
  for (const auto schedule :
       {PipelineSchedule::kGpipe, PipelineSchedule::kOneForwardOneBackward}) {
    for (int stages = 1; stages <= 5; ++stages) {
      for (int micro_batches = 1; micro_batches <= 8; ++micro_batches) {
        std::vector<std::vector<PipelineOperation>> operations;
        for (int s = 0; s < stages; ++s) {
          operations.push_back(stage_operations(schedule, s, stages, micro_batches));
        }
        // done[s][kind][m]
        std::vector<std::vector<std::vector<bool>>> done(
            stages, std::vector<std::vector<bool>>(2, std::vector<bool>(micro_batches, false)));
        std::vector<std::size_t> next(stages, 0);
        bool progress = true;
        while (progress) {
          progress = false;
          for (int s = 0; s < stages; ++s) {
            if (next[s] == operations[s].size()) continue;
            const PipelineOperation op = operations[s][next[s]];
            const bool forward = op.kind == Kind::kForward;
            const bool ready = forward ? (s == 0 || done[s - 1][0][op.micro_batch])
                                       : (s == stages - 1 ? done[s][0][op.micro_batch]
                                                          : done[s + 1][1][op.micro_batch]);
            if (!ready) continue;
            done[s][forward ? 0 : 1][op.micro_batch] = true;
            ++next[s];
            progress = true;
          }
        }
        for (int s = 0; s < stages; ++s) {
          EXPECT_EQ(next[s], operations[s].size())
              << name_of(schedule) << " K=" << stages << " M=" << micro_batches << ": stage "
              << s << " stuck";
        }
      }
    }
  }
}

TEST(PipelineStageTest, MicroBatchesSplitTheRowsEvenly) {
  const auto split = split_rows(10, 4);
  ASSERT_EQ(split.size(), 4u);
  EXPECT_EQ(split[0].rows, 3);
  EXPECT_EQ(split[1].first, 3);
  EXPECT_EQ(split[2].rows, 2);
  EXPECT_EQ(split[3].first, 8);
  EXPECT_EQ(split[3].total, 10);
  EXPECT_THROW(split_rows(3, 4), std::invalid_argument);
}

constexpr std::int64_t kWidth = 12, kRows = 20;

// A chain of 7 blocks (Linear, Tanh, ..., Linear to one output), the same on every rank.
torch::nn::Sequential chain() {
  torch::manual_seed(7);
  torch::nn::Sequential net;
  for (int i = 0; i < 3; ++i) {
    net->push_back(torch::nn::Linear(kWidth, kWidth));
    net->push_back(torch::nn::Tanh());
  }
  net->push_back(torch::nn::Linear(kWidth, 1));
  return net;
}

// The blocks of `net` (shared, not copied) that stage `stage` of `stages` holds.
torch::nn::Sequential stage_blocks(torch::nn::Sequential net, int stage, int stages) {
  const StageRange range = partition_by_parameters(block_parameter_counts(net), stages)[stage];
  torch::nn::Sequential blocks;
  for (std::size_t i = range.first; i < range.end; ++i) {
    blocks->push_back(*(net->begin() + static_cast<std::ptrdiff_t>(i)));
  }
  return blocks;
}

at::Tensor mse(const at::Tensor& output, const at::Tensor& targets) {
  return (output - targets).pow(2).mean();
}

struct Data {
  at::Tensor inputs, targets;
};

Data data() {
  torch::manual_seed(11);
  return {at::randn({kRows, kWidth}), at::randn({kRows, 1})};
}

// The gradients of `blocks` after GPipe trains one minibatch on the pipeline `pipeline`.
std::vector<at::Tensor> gpipe_gradients(Communicator& pipeline, int micro_batches,
                                        bool recompute) {
  torch::nn::Sequential net = chain();
  PipelineOptions options;
  options.micro_batches = micro_batches;
  options.recompute_activations = recompute;
  PipelineStage stage(pipeline, stage_blocks(net, pipeline.rank(), pipeline.size()), options);
  const Data d = data();
  int applied = 0;
  stage.train(
      kRows, d.inputs,
      [&](const at::Tensor& output, const MicroBatch& m) {
        return mse(output, d.targets.narrow(0, m.first, m.rows));
      },
      [&] { ++applied; });
  EXPECT_EQ(applied, 1) << "GPipe applies its gradients once, at the flush";
  std::vector<at::Tensor> gradients;
  for (const auto& p : stage.blocks()->parameters()) gradients.push_back(p.grad().clone());
  return gradients;
}

// The unsplit network's gradients for stage `stage`'s blocks: of the whole minibatch's loss
// (micro_batches 0), or summed over the micro-batches' losses weighted by their share of the
// rows, in order (GPipe's summation order).
std::vector<at::Tensor> unsplit_gradients(int stage, int stages, int micro_batches) {
  torch::nn::Sequential net = chain();
  const Data d = data();
  if (micro_batches == 0) {
    mse(net->forward(d.inputs), d.targets).backward();
  } else {
    for (const MicroBatch& m : split_rows(kRows, micro_batches)) {
      (mse(net->forward(d.inputs.narrow(0, m.first, m.rows)), d.targets.narrow(0, m.first, m.rows)) *
       (static_cast<double>(m.rows) / static_cast<double>(m.total)))
          .backward();
    }
  }
  std::vector<at::Tensor> gradients;
  for (const auto& p : stage_blocks(net, stage, stages)->parameters()) gradients.push_back(p.grad());
  return gradients;
}

// The pipelines this job's ranks form: all of them as one, and with 4 ranks also two of 2.
std::vector<std::unique_ptr<Communicator>> pipelines(Communicator& world) {
  std::vector<std::unique_ptr<Communicator>> groups;
  groups.push_back(world.split(0));
  if (world.size() == 4) groups.push_back(world.split(world.rank() / 2));
  return groups;
}

TEST(PipelineStageTest, GpipeGivesTheUnsplitNetworksGradients) {
  for (const auto& pipeline : pipelines(test_communicator())) {
    const int s = pipeline->rank(), k = pipeline->size();
    SCOPED_TRACE("stage " + std::to_string(s) + " of " + std::to_string(k));
    // One micro-batch: the same operations as unsplit, bit for bit.
    const auto whole = unsplit_gradients(s, k, 0);
    const auto one = gpipe_gradients(*pipeline, 1, false);
    ASSERT_EQ(one.size(), whole.size());
    for (std::size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(one[i].equal(whole[i])) << i;
    // Four: the minibatch's gradient up to the order of summation; bit for bit against the
    // unsplit network summing in the same order; recomputing the activations changes nothing.
    const auto four = gpipe_gradients(*pipeline, 4, false);
    const auto four_in_order = unsplit_gradients(s, k, 4);
    const auto four_recomputed = gpipe_gradients(*pipeline, 4, true);
    for (std::size_t i = 0; i < four.size(); ++i) {
      EXPECT_TRUE(four[i].allclose(whole[i], 1e-5, 1e-7)) << i;
      EXPECT_FALSE(four[i].equal(at::zeros_like(four[i]))) << i;
      EXPECT_TRUE(four[i].equal(four_in_order[i])) << i;
      EXPECT_TRUE(four_recomputed[i].equal(four[i])) << i;
    }
  }
}

constexpr double kLearningRate = 0.05;

void sgd_step(const torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& p : module.parameters()) p.sub_(p.grad() * kLearningRate);
}

// PipeDream with weight stashing, against its definition on the unsplit network: micro-batch m
// goes through stage s with the weights after max(0, m - warmup_s) of that stage's updates (its
// forward's, kept for its backward), and the update from its gradient applies to the stage's
// newest weights.
TEST(PipelineStageTest, OneForwardOneBackwardUpdatesWithStashedWeights) {
  constexpr int kMicroBatches = 5;
  for (const auto& pipeline : pipelines(test_communicator())) {
    const int s = pipeline->rank(), k = pipeline->size();
    SCOPED_TRACE("stage " + std::to_string(s) + " of " + std::to_string(k));
    const Data d = data();
    const auto split = split_rows(kRows, kMicroBatches);
    for (const bool recompute : {false, true}) {
      torch::nn::Sequential net = chain();
      PipelineOptions options;
      options.micro_batches = kMicroBatches;
      options.schedule = PipelineSchedule::kOneForwardOneBackward;
      options.recompute_activations = recompute;
      PipelineStage stage(*pipeline, stage_blocks(net, s, k), options);
      int applied = 0;
      stage.train(
          kRows, d.inputs,
          [&](const at::Tensor& output, const MicroBatch& m) {
            return mse(output, d.targets.narrow(0, m.first, m.rows));
          },
          [&] {
            ++applied;
            sgd_step(*stage.blocks());
          });
      EXPECT_EQ(applied, kMicroBatches);

      // The definition: versions[t][v] are stage t's weights after v updates.
      torch::nn::Sequential reference = chain();
      std::vector<torch::nn::Sequential> stages;
      std::vector<std::vector<std::vector<at::Tensor>>> versions(k);
      for (int t = 0; t < k; ++t) {
        stages.push_back(stage_blocks(reference, t, k));
        std::vector<at::Tensor> initial;
        for (const auto& p : stages[t]->parameters()) initial.push_back(p.detach().clone());
        versions[t].push_back(initial);
      }
      for (int m = 0; m < kMicroBatches; ++m) {
        for (int t = 0; t < k; ++t) {
          const int version = std::max(0, m - warmup_forwards(t, k, kMicroBatches));
          torch::NoGradGuard no_grad;
          const auto parameters = stages[t]->parameters();
          for (std::size_t i = 0; i < parameters.size(); ++i) {
            parameters[i].copy_(versions[t][static_cast<std::size_t>(version)][i]);
            if (parameters[i].grad().defined()) parameters[i].mutable_grad().zero_();
          }
        }
        const MicroBatch& mb = split[static_cast<std::size_t>(m)];
        mse(reference->forward(d.inputs.narrow(0, mb.first, mb.rows)),
            d.targets.narrow(0, mb.first, mb.rows))
            .backward();
        for (int t = 0; t < k; ++t) {
          std::vector<at::Tensor> updated;
          const auto parameters = stages[t]->parameters();
          for (std::size_t i = 0; i < parameters.size(); ++i) {
            updated.push_back(versions[t].back()[i] - parameters[i].grad() * kLearningRate);
          }
          versions[t].push_back(updated);
        }
      }
      const auto parameters = stage.blocks()->parameters();
      for (std::size_t i = 0; i < parameters.size(); ++i) {
        EXPECT_TRUE(parameters[i].equal(versions[s].back()[i])) << "parameter " << i;
        EXPECT_FALSE(parameters[i].equal(versions[s].front()[i])) << "parameter " << i;
      }
    }
  }
}

TEST(PipelineStageTest, InferenceGivesTheUnsplitOutputOnTheLastStage) {
  for (const auto& pipeline : pipelines(test_communicator())) {
    torch::nn::Sequential net = chain();
    PipelineStage stage(*pipeline, stage_blocks(net, pipeline->rank(), pipeline->size()), {});
    const Data d = data();
    const at::Tensor output = stage.infer(d.inputs);
    if (stage.last()) {
      torch::NoGradGuard no_grad;
      EXPECT_TRUE(output.equal(chain()->forward(d.inputs)));
    } else {
      EXPECT_FALSE(output.defined());
    }
  }
}

}  // namespace
}  // namespace mnrl::distributed
