#include "experiments/training/actor_learner_links.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/liveness.h"
#include "core/stop_signal.h"
#include "core/text.h"
#include "distributed/byte_exchange.h"
#include "distributed/communicator.h"
#include "experiments/checkpoints/training_checkpoint.h"

namespace mnrl::experiments {
namespace {

constexpr int kExperienceTag = 3;
constexpr int kParametersTag = 4;
constexpr int kStateRequestTag = 5;
constexpr int kStateTag = 6;
// The largest actor state a learner takes (its agent and envs: megabytes for pixel envs).
constexpr std::int64_t kLargestState = std::int64_t{1} << 30;

// The fields after a payload, and after the parameters.
enum ExperienceField {
  kSteps,
  kEpisodes,
  kReturnSum,
  kLengthSum,
  kStopRequested,
  kActedWith,  // two fields (Count)
  kActedWithLow,
  kStateFollows,
  kFinal,
  kExperienceFields
};
enum ParametersField {
  kStop,
  kVersion,  // two fields each (Count)
  kVersionLow,
  kGlobalStep,
  kGlobalStepLow,
  kParametersFields
};

// A count (a step, a version) in two floats, exact up to 2^48 (one float is exact to 2^24).
constexpr double kLowRange = 1 << 24;
void put_count(std::int64_t count, float* fields) {
  const double high = std::floor(static_cast<double>(count) / kLowRange);
  fields[0] = static_cast<float>(high);
  fields[1] = static_cast<float>(static_cast<double>(count) - high * kLowRange);
}
std::int64_t get_count(const float* fields) {
  return static_cast<std::int64_t>(static_cast<double>(fields[0]) * kLowRange +
                                   static_cast<double>(fields[1]));
}

// Floats of observation statistics of `size` elements in a message: mean, variance, count.
std::int64_t statistics_floats(std::size_t size) { return 2 * static_cast<std::int64_t>(size) + 2; }

}  // namespace

ActorsLink::ActorsLink(distributed::Communicator& communicator, const ActorsLearnersLayout& layout,
                       std::int64_t payload_floats)
    : communicator_(communicator),
      actors_(layout.actors_of(communicator.rank())),
      payload_floats_(payload_floats),
      message_(at::empty({message_floats()}, at::kFloat)),
      actors_running_(static_cast<int>(actors_.size())) {}

std::int64_t ActorsLink::message_floats() const {
  return payload_floats_ + (statistics_ ? statistics_floats(statistics_->size()) : 0) +
         kExperienceFields;
}

void ActorsLink::merge_observation_statistics_into(
    std::shared_ptr<envs::RunningMeanStd> statistics) {
  statistics_ = std::move(statistics);
  message_ = at::empty({message_floats()}, at::kFloat);
}

void ActorsLink::merge_statistics(int actor, const float* sent) {
  const std::size_t size = statistics_->size();
  std::vector<double> mean(sent, sent + size), var(sent + size, sent + 2 * size);
  const auto count = static_cast<double>(get_count(sent + 2 * size));
  actor_statistics_.insert_or_assign(actor, envs::RunningMeanStd(mean, var, count));
  envs::RunningMeanStd merged(size);
  for (const auto& [rank, statistics] : actor_statistics_) merged.merge(statistics);
  *statistics_ = merged;
}

void ActorsLink::share_initial(at::Tensor parameters) { communicator_.broadcast(parameters, 0); }

bool ActorsLink::receive_message(int source, at::Tensor& message, ExperienceReport& report) {
  const auto start = std::chrono::steady_clock::now();
  report.source = communicator_.receive(message, source, kExperienceTag);
  waited_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const float* fields = message.data_ptr<float>() + message_floats() - kExperienceFields;
  if (fields[kFinal] != 0) {
    --actors_running_;
    return false;
  }
  if (statistics_) merge_statistics(report.source, message.data_ptr<float>() + payload_floats_);
  report.steps = fields[kSteps];
  report.episodes = fields[kEpisodes];
  report.return_sum = fields[kReturnSum];
  report.length_sum = fields[kLengthSum];
  report.stop_requested = fields[kStopRequested] != 0;
  report.acted_with = get_count(fields + kActedWith);
  report.state_follows = fields[kStateFollows] != 0;
  return true;
}

const float* ActorsLink::receive() {
  if (!kept_.empty()) {
    message_ = std::move(kept_.front().message);
    report_ = kept_.front().report;
    kept_.pop_front();
    return message_.data_ptr<float>();
  }
  while (actors_running_ > 0) {
    if (receive_message(distributed::Communicator::kAnySource, message_, report_)) {
      return message_.data_ptr<float>();
    }
  }
  return nullptr;
}

std::vector<ActorState> ActorsLink::collect_states(double timeout_seconds) {
  std::vector<ActorState> states;
  if (actors_running_ < static_cast<int>(actors_.size())) return states;
  const at::Tensor request = at::ones({1}, at::kFloat);
  for (const int actor : actors_) communicator_.start_send(request, actor, kStateRequestTag);
  std::vector<int> waiting_for = actors_;
  auto heard = std::chrono::steady_clock::now();  // when an actor last sent something
  while (!waiting_for.empty()) {
    const auto from = std::find_if(waiting_for.begin(), waiting_for.end(), [&](int actor) {
      return communicator_.has_message(actor, kExperienceTag);
    });
    if (from == waiting_for.end()) {
      core::report_alive();  // to the actors waiting on their full queues meanwhile
      const double silent =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - heard).count();
      if (silent > timeout_seconds) {
        std::vector<std::string> ranks;
        for (const int actor : waiting_for) ranks.push_back(std::to_string(actor));
        throw std::runtime_error("actor rank(s) " + core::join(ranks) + " sent nothing for " +
                                 std::to_string(static_cast<int>(timeout_seconds)) +
                                 " s (distributed.timeout) while their learner collected the "
                                 "actors' states for a checkpoint (stopped, hung, or stuck in an "
                                 "env step?)");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      continue;
    }
    const int actor = *from;
    Experience experience{at::empty({message_floats()}, at::kFloat), {}};
    if (!receive_message(actor, experience.message, experience.report)) {
      throw std::logic_error("an actor ended while its learner collected the actors' states");
    }
    heard = std::chrono::steady_clock::now();
    if (experience.report.state_follows) {
      states.push_back({actor, distributed::receive_bytes(communicator_, actor, kStateTag,
                                                          kLargestState, "an actor's state")});
      waiting_for.erase(from);
    }
    kept_.push_back(std::move(experience));
  }
  return states;
}

bool ActorsLink::experience_waiting() {
  return !kept_.empty() ||
         communicator_.has_message(distributed::Communicator::kAnySource, kExperienceTag);
}

void ActorsLink::send(const at::Tensor& parameters, std::int64_t version, std::int64_t step,
                      bool stop) {
  // A fresh message each time: start_send() holds it until it is delivered.
  const std::int64_t p = parameters.numel();
  at::Tensor message = at::empty({p + kParametersFields}, at::kFloat);
  message.narrow(0, 0, p).copy_(parameters.detach());
  float* fields = message.data_ptr<float>() + p;
  fields[kStop] = stop ? 1.0f : 0.0f;
  put_count(version, fields + kVersion);
  put_count(step, fields + kGlobalStep);
  for (const int actor : actors_) {
    // An actor still to take the last parameters gets the next ones instead.
    if (!stop && communicator_.sends_pending(actor) > 0) continue;
    communicator_.start_send(message, actor, kParametersTag);
  }
}

void ActorsLink::send_parameters(const at::Tensor& parameters, std::int64_t version,
                                 std::int64_t step) {
  send(parameters, version, step, /*stop=*/false);
}

void ActorsLink::stop(const at::Tensor& parameters, std::int64_t version, std::int64_t step) {
  if (actors_running_ > 0) send(parameters, version, step, /*stop=*/true);
  while (receive() != nullptr) {
  }
  communicator_.wait_for_sends(0);
}

LearnerLink::LearnerLink(distributed::Communicator& communicator,
                         const ActorsLearnersLayout& layout, at::Tensor parameters,
                         std::int64_t payload_floats, std::int64_t queue_size,
                         std::int64_t first_step)
    : communicator_(communicator),
      layout_(layout),
      learner_(layout.learner_of(communicator.rank())),
      parameters_(std::move(parameters)),
      received_(at::empty({parameters_.numel() + kParametersFields}, at::kFloat)),
      payload_floats_(payload_floats),
      queue_size_(queue_size),
      global_step_(first_step) {}

int LearnerLink::rank() const { return communicator_.rank(); }

std::int64_t LearnerLink::message_floats() const {
  return payload_floats_ + (statistics_ ? statistics_floats(statistics_->size()) : 0) +
         kExperienceFields;
}

void LearnerLink::share_initial() { communicator_.broadcast(parameters_, 0); }

bool LearnerLink::take_parameters() {
  const std::int64_t p = parameters_.numel();
  const float* fields = received_.data_ptr<float>() + p;
  // The newest parameters sent; the stop flag comes last of all.
  bool fresh = false;
  while (communicator_.has_message(learner_, kParametersTag)) {
    communicator_.receive(received_, learner_, kParametersTag);
    fresh = true;
    global_step_ = get_count(fields + kGlobalStep);
    version_ = get_count(fields + kVersion);
  }
  if (fresh && fields[kStop] != 0) return false;
  if (fresh) parameters_.copy_(received_.narrow(0, 0, p));
  return true;
}

bool LearnerLink::state_requested() {
  if (!communicator_.has_message(learner_, kStateRequestTag)) return false;
  at::Tensor request = at::empty({1}, at::kFloat);
  communicator_.receive(request, learner_, kStateRequestTag);
  return true;
}

float* LearnerLink::next_payload() {
  // A fresh message each time: start_send() holds the previous ones until they are delivered.
  outgoing_ = at::empty({message_floats()}, at::kFloat);
  return outgoing_.data_ptr<float>();
}

void LearnerLink::send(const EpisodeTally& tally, bool state_follows) {
  if (statistics_) {
    float* out = outgoing_.data_ptr<float>() + payload_floats_;
    out = std::copy(statistics_->mean().begin(), statistics_->mean().end(), out);
    out = std::copy(statistics_->var().begin(), statistics_->var().end(), out);
    put_count(std::llround(statistics_->count()), out);
  }
  float* fields = outgoing_.data_ptr<float>() + message_floats() - kExperienceFields;
  fields[kSteps] = static_cast<float>(tally.steps);
  fields[kEpisodes] = static_cast<float>(tally.episodes);
  fields[kReturnSum] = static_cast<float>(tally.return_sum);
  fields[kLengthSum] = static_cast<float>(tally.length_sum);
  fields[kStopRequested] = core::stop_requested() ? 1.0f : 0.0f;
  put_count(version_, fields + kActedWith);
  fields[kStateFollows] = state_follows ? 1.0f : 0.0f;
  fields[kFinal] = 0.0f;
  communicator_.wait_for_sends(static_cast<int>(queue_size_) - 1);
  communicator_.start_send(outgoing_, learner_, kExperienceTag);
}

void LearnerLink::send_state(const std::string& state) {
  distributed::send_bytes(communicator_, state, learner_, kStateTag);
}

void LearnerLink::finish() {
  at::Tensor final_message = at::zeros({message_floats()}, at::kFloat);
  final_message.data_ptr<float>()[message_floats() - kExperienceFields + kFinal] = 1.0f;
  communicator_.start_send(final_message, learner_, kExperienceTag);
  communicator_.wait_for_sends(0);
}

LearnerGroup::Round LearnerGroup::agree(const Round& mine) {
  if (learners_ == nullptr) return mine;
  at::Tensor sums = at::empty({6}, at::kDouble);
  double* values = sums.data_ptr<double>();
  values[0] = static_cast<double>(mine.steps);
  values[1] = mine.episodes.episodes;
  values[2] = mine.episodes.return_sum;
  values[3] = mine.episodes.length_sum;
  values[4] = mine.stop ? 1.0 : 0.0;
  values[5] = mine.ready ? 0.0 : 1.0;
  learners_->all_reduce(sums, distributed::ReduceOp::kSum);
  Round all;
  all.steps = static_cast<std::int64_t>(values[0]);
  all.episodes.episodes = values[1];
  all.episodes.return_sum = values[2];
  all.episodes.length_sum = values[3];
  all.stop = values[4] > 0;
  all.ready = values[5] == 0;
  return all;
}

}  // namespace mnrl::experiments
