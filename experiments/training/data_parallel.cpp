#include "experiments/training/data_parallel.h"

#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>

#include "core/rng.h"
#include "core/seed_streams.h"
#include "core/state_stream.h"
#include "distributed/byte_exchange.h"
#include "distributed/communicator.h"
#include "distributed/gradient_synchronizer.h"
#include "envs/normalize_observation.h"
#include "envs/normalize_reward.h"

namespace mnrl::experiments {
namespace {

// Every rank's current `statistics`, from its bytes.
std::vector<envs::RunningMeanStd> gather_statistics(distributed::Communicator& communicator,
                                                    const envs::RunningMeanStd& statistics) {
  core::StateWriter out;
  statistics.save_state(out);
  std::vector<envs::RunningMeanStd> all;
  const auto gathered = distributed::all_gather_bytes(communicator, out.bytes());
  for (std::size_t rank = 0; rank < gathered.size(); ++rank) {
    core::StateReader in(gathered[rank], "normalization statistics of rank " + std::to_string(rank));
    all.emplace_back(statistics.size()).load_state(in);
  }
  return all;
}

}  // namespace

ExperimentOptions options_for_rank(const ExperimentOptions& options, int rank, int size) {
  ExperimentOptions mine = options;
  if (rank > 0) {
    mine.seed = static_cast<std::int64_t>(
        core::derive_seed(static_cast<std::uint64_t>(options.seed), core::kRankStream + rank) >> 1);
  }
  if (options.distributed.lr_scaling == "linear") {
    options.algorithm().scale_learning_rate(mine.algorithms.at(options.algo), size);
  }
  mine.train.total_steps = (options.train.total_steps + size - 1) / size;
  return mine;
}

DataParallel::DataParallel(distributed::Communicator& communicator,
                           const DistributedOptions& options,
                           distributed::GradientSynchronizer& synchronizer, envs::VectorEnv& envs)
    : communicator_(communicator),
      synchronizer_(synchronizer),
      sync_check_interval_(options.sync_check_interval) {
  if (auto* observations = envs.find_transform<envs::NormalizeObservation>()) {
    statistics_.push_back({observations->statistics(), *observations->statistics()});
  }
  if (auto* rewards = envs.find_transform<envs::NormalizeReward>()) {
    statistics_.push_back({rewards->statistics(), *rewards->statistics()});
  }
}

bool DataParallel::leader() const { return communicator_.rank() == 0; }

int DataParallel::size() const { return communicator_.size(); }

void DataParallel::broadcast_from_leader() {
  synchronizer_.broadcast_parameters();
  for (auto& [statistics, agreed] : statistics_) {
    *statistics = gather_statistics(communicator_, *statistics).front();
    agreed = *statistics;
  }
}

bool DataParallel::any_rank(bool condition) {
  at::Tensor flag = at::tensor({static_cast<std::int64_t>(condition)}, at::kLong);
  communicator_.all_reduce(flag, distributed::ReduceOp::kMax);
  return flag.item<std::int64_t>() != 0;
}

bool DataParallel::stop_agreed(bool requested) {
  if (++steps_since_stop_check_ < kStopCheckSteps) return false;
  steps_since_stop_check_ = 0;
  return any_rank(requested);
}

bool DataParallel::all_agree(bool yes) { return !any_rank(!yes); }

void DataParallel::after_update() {
  // What each rank added since the last agreement, merged in rank order: the same bits
  // everywhere, and what one process seeing every rank's observations would hold.
  for (auto& [statistics, agreed] : statistics_) {
    envs::RunningMeanStd merged = agreed;
    for (const auto& current : gather_statistics(communicator_, *statistics)) {
      merged.merge(current.added_since(agreed));
    }
    *statistics = merged;
    agreed = merged;
  }
  ++updates_;
  if (sync_check_interval_ > 0 && updates_ % sync_check_interval_ == 0) {
    synchronizer_.check_in_sync();
  }
}

ReducedMetrics::ReducedMetrics(distributed::Communicator& communicator, MetricsSink* leader_sink)
    : communicator_(communicator), leader_sink_(leader_sink) {}

void ReducedMetrics::scalar(std::int64_t, const std::string& name, double value) {
  if (name == "charts/episodic_return") {
    episodes_ += 1;
    return_sum_ += value;
  } else if (name == "charts/episodic_length") {
    length_sum_ += value;
  } else {
    statistics_.emplace_back(name, value);
  }
}

void ReducedMetrics::publish(std::int64_t step) {
  // One all-reduce: [episodes, return sum, length sum, statistic...]. Every rank reports the
  // same statistics in the same order, as every rank makes the same updates.
  at::Tensor sums = at::zeros({static_cast<std::int64_t>(3 + statistics_.size())}, at::kDouble);
  double* values = sums.data_ptr<double>();
  values[0] = episodes_;
  values[1] = return_sum_;
  values[2] = length_sum_;
  for (std::size_t i = 0; i < statistics_.size(); ++i) values[3 + i] = statistics_[i].second;
  communicator_.all_reduce(sums, distributed::ReduceOp::kSum);
  if (leader_sink_) {
    if (values[0] > 0) {
      leader_sink_->scalar(step, "charts/episodic_return", values[1] / values[0]);
      leader_sink_->scalar(step, "charts/episodic_length", values[2] / values[0]);
    }
    const double ranks = communicator_.size();
    for (std::size_t i = 0; i < statistics_.size(); ++i) {
      leader_sink_->scalar(step, statistics_[i].first, values[3 + i] / ranks);
    }
  }
  episodes_ = return_sum_ = length_sum_ = 0;
  statistics_.clear();
}

}  // namespace mnrl::experiments
