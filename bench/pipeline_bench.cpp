// A big MLP trained as pipeline stages across the job's ranks (distributed/pipeline): the time
// per minibatch, each stage's share of it spent waiting on its neighbours (the bubble) against
// GPipe's (K-1)/(M+K-1), and each rank's peak resident memory.
//
//   mpirun -np K build/bench/pipeline_bench [--width 4096] [--depth 12] [--batch 64]
//       [--micro-batches M] [--schedule gpipe|1f1b] [--recompute] [--steps 5]
//
// Each of the `depth` blocks is Linear(width, width) + ReLU; the loss is the mean square of the
// output; Adam (LibTorch's) steps each stage's parameters. Stages are cut by parameter count and
// each rank builds only its own blocks (block i seeded with 1000 + i, as any cut builds it), so
// a rank holds its parameters, their gradients and Adam's two moments: 4 floats a parameter.
// One untimed minibatch first, then `steps` timed ones. Run with one thread per rank
// (OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1) and no more ranks than idle cores.
#include <sys/resource.h>

#include <ATen/ops/randn.h>
#include <ATen/ops/tensor.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "distributed/communicator.h"
#include "distributed/pipeline/pipeline_stage.h"
#include "distributed/pipeline/stage_partition.h"

namespace {

using mnrl::distributed::PipelineOptions;

struct Settings {
  std::int64_t width = 4096, depth = 12, batch = 64;
  int steps = 5;
  PipelineOptions pipeline;
};

Settings parse(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--recompute") {
      settings.pipeline.recompute_activations = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--width") {
      settings.width = std::stoll(value);
    } else if (flag == "--depth") {
      settings.depth = std::stoll(value);
    } else if (flag == "--batch") {
      settings.batch = std::stoll(value);
    } else if (flag == "--micro-batches") {
      settings.pipeline.micro_batches = std::stoi(value);
    } else if (flag == "--schedule") {
      settings.pipeline.schedule = mnrl::distributed::pipeline_schedule_named(value);
    } else if (flag == "--steps") {
      settings.steps = std::stoi(value);
    } else {
      throw std::invalid_argument("unknown option " + flag);
    }
  }
  return settings;
}

double peak_resident_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KB on Linux
}

}  // namespace

int main(int argc, char** argv) try {
  const Settings settings = parse(argc, argv);
  auto world = mnrl::distributed::make_communicator("auto");
  const int stages = world->size(), stage = world->rank();
  const std::vector<std::int64_t> counts(static_cast<std::size_t>(settings.depth),
                                         settings.width * settings.width + settings.width);
  const auto range = mnrl::distributed::partition_by_parameters(counts, stages)[stage];
  torch::nn::Sequential blocks;
  for (std::size_t i = range.first; i < range.end; ++i) {
    torch::manual_seed(1000 + i);
    blocks->push_back(torch::nn::Linear(settings.width, settings.width));
    blocks->push_back(torch::nn::ReLU());
  }
  torch::optim::Adam adam(blocks->parameters(), torch::optim::AdamOptions(1e-4));
  mnrl::distributed::PipelineStage pipeline(*world, blocks, settings.pipeline);
  torch::manual_seed(1);
  const at::Tensor input = at::randn({settings.batch, settings.width});
  const auto loss = [](const at::Tensor& output, const mnrl::distributed::MicroBatch&) {
    return output.pow(2).mean();
  };
  const auto apply = [&] { adam.step(); };

  pipeline.train(settings.batch, input, loss, apply);  // untimed: Adam's state appears here
  world->barrier();
  const double waited_before = pipeline.waiting_seconds();
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < settings.steps; ++s) pipeline.train(settings.batch, input, loss, apply);
  world->barrier();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double waiting = (pipeline.waiting_seconds() - waited_before) / seconds;

  const at::Tensor mine = at::tensor(
      {seconds / settings.steps, waiting, peak_resident_mb(),
       static_cast<double>(range.end - range.first)},
      at::kDouble);
  const at::Tensor all = world->all_gather(mine);
  if (stage == 0) {
    const int m = settings.pipeline.micro_batches;
    std::printf("K=%d M=%d %s%s width %lld depth %lld batch %lld: %.3f s per minibatch",
                stages, m, mnrl::distributed::name_of(settings.pipeline.schedule),
                settings.pipeline.recompute_activations ? " recompute" : "",
                static_cast<long long>(settings.width), static_cast<long long>(settings.depth),
                static_cast<long long>(settings.batch), all[0][0].item<double>());
    std::printf("; GPipe bubble (K-1)/(M+K-1) = %.3f\n",
                static_cast<double>(stages - 1) / static_cast<double>(m + stages - 1));
    for (int r = 0; r < stages; ++r) {
      std::printf("  stage %d: %.0f blocks, waiting %.3f of the time, peak RSS %.0f MB\n", r,
                  all[r][3].item<double>(), all[r][1].item<double>(), all[r][2].item<double>());
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "pipeline_bench: %s\n", e.what());
  return 2;
}
