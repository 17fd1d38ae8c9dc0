#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "envs/running_mean_std.h"
#include "envs/vector_env.h"
#include "experiments/config/experiment_options.h"
#include "experiments/metrics/metrics.h"

namespace mnrl::distributed {
class Communicator;
class GradientSynchronizer;
}  // namespace mnrl::distributed

namespace mnrl::experiments {

// The options rank `rank` of `size` trains with: its own seed (rank 0 keeps the experiment's,
// so a job of one rank is the single-process run), the learning rate scaled as
// distributed.lr_scaling says, and a DQN's exploration schedule over its own share of
// train.total_steps (which counts the env steps of all ranks).
ExperimentOptions options_for_rank(const ExperimentOptions& options, int rank, int size);

// One rank of a data-parallel job (ChainerMN's model): every rank holds the same agent and
// steps envs of its own; updates average the gradients over the ranks, so the replicas stay
// bitwise equal. This class does what the training loop adds around that:
//  - parameters (and normalization statistics) from rank 0 at the start and after a resume;
//  - agreement on stopping, so all ranks stop at the same step and write one checkpoint;
//  - after each update, merging the observation/reward normalization statistics and, every
//    distributed.sync_check_interval updates, checking that the replicas are equal.
// Every method is collective: all ranks call it at the same point of the loop.
class DataParallel {
 public:
  DataParallel(distributed::Communicator& communicator, const DistributedOptions& options,
               distributed::GradientSynchronizer& synchronizer, envs::VectorEnv& envs);

  bool leader() const;
  int size() const;

  // Rank 0's parameters and normalization statistics on every rank.
  void broadcast_from_leader();
  // Called after every vector step with this rank's stop request; every kStopCheckSteps-th
  // call returns whether any rank asked to stop (otherwise false).
  bool stop_agreed(bool requested);
  // Whether `yes` holds on every rank.
  bool all_agree(bool yes);
  // Whether `condition` holds on any rank.
  bool any_rank(bool condition);
  // Merges the normalization statistics and checks the replicas on schedule.
  void after_update();

 private:
  static constexpr int kStopCheckSteps = 16;

  // The envs' normalization statistics, each with the value all ranks last agreed on.
  struct SharedStatistics {
    std::shared_ptr<envs::RunningMeanStd> statistics;
    envs::RunningMeanStd agreed;
  };

  distributed::Communicator& communicator_;
  distributed::GradientSynchronizer& synchronizer_;
  std::vector<SharedStatistics> statistics_;
  std::int64_t sync_check_interval_;
  std::int64_t updates_ = 0;
  int steps_since_stop_check_ = 0;
};

// The metrics of a data-parallel job, reduced over its ranks: every rank reports into it as
// into any sink; publish() (collective, after every update and at the end) sends rank 0's
// `leader_sink` the mean return and length of the episodes all ranks finished since the last
// publish() and the mean over ranks of each update statistic. Anything else (evaluations,
// SPS) goes to the leader's sink directly.
class ReducedMetrics final : public MetricsSink {
 public:
  // `leader_sink`: rank 0's sink; null on the other ranks.
  ReducedMetrics(distributed::Communicator& communicator, MetricsSink* leader_sink);

  void scalar(std::int64_t step, const std::string& name, double value) override;
  void publish(std::int64_t step);

 private:
  distributed::Communicator& communicator_;
  MetricsSink* leader_sink_;
  double episodes_ = 0, return_sum_ = 0, length_sum_ = 0;
  std::vector<std::pair<std::string, double>> statistics_;  // in the order reported
};

}  // namespace mnrl::experiments
