#include "experiments/config/experiment_options.h"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "agents/encoder_setup.h"
#include "agents/registry.h"
#include "core/available_memory.h"
#include "core/config_keys.h"
#include "core/scalar_text.h"
#include "core/text.h"
#include "envs/env_options.h"
#include "envs/plugin_loader.h"
#include "envs/registry.h"
#include "experiments/config/config_paths.h"
#include "experiments/training/topology_registry.h"

namespace mnrl::experiments {
namespace fs = std::filesystem;

namespace {

// `config_dir`: where the relative paths of the document are taken from (config_paths.h).
ExperimentOptions read_experiment(core::ConfigDocument document,
                                  const std::vector<std::string>& overrides,
                                  const fs::path& config_dir) {
  for (const auto& assignment : overrides) document.set(assignment);
  ExperimentOptions options;
  document.read_into(options);
  resolve_config_paths(options.env, document, config_dir);
  options.network_bytes = validate_experiment(options, document);
  // The resolved config names the env's plugin by its absolute path (wherever the env came
  // from: env.plugin or --plugin), so that the run resumes and evaluates from any directory.
  const std::string& plugin = envs::Registry::global().origin(options.env.id);
  if (!plugin.empty()) options.env.plugin = fs::absolute(plugin).lexically_normal().string();
  return options;
}

// Bounds on what a config may ask for, checked before anything is allocated or written.
constexpr std::size_t kMaxHiddenLayers = 64;
constexpr double kMaxNetworkParameters = 100e6;

// Bytes malloc has handed out and not had back (its arenas and its mmapped blocks): the
// difference across making an env is what the env holds.
double heap_bytes_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks) + static_cast<double>(info.hblkhd);
}

// Parameters of an MLP from `inputs` through `hidden` to `outputs`.
double mlp_parameters(double inputs, const std::vector<std::int64_t>& hidden, double outputs) {
  double total = 0.0;
  for (const std::int64_t width : hidden) {
    total += inputs * static_cast<double>(width) + static_cast<double>(width);
    inputs = static_cast<double>(width);
  }
  return total + inputs * outputs + outputs;
}

// Parameters of a convolutional encoder, and the width of the features it gives the trunk.
std::pair<double, double> encoder_parameters(const nn::ConvEncoderOptions& encoder) {
  double parameters = 0.0;
  double in = static_cast<double>(encoder.image_shape()[0]);
  for (std::size_t i = 0; i < encoder.channels().size(); ++i) {
    const double out = static_cast<double>(encoder.channels()[i]);
    const double kernel = static_cast<double>(encoder.kernel_sizes()[i]);
    parameters += in * out * kernel * kernel + out;
    in = out;
  }
  double features = 1.0;
  for (const std::int64_t size : nn::conv_output_shape(encoder)) {
    features *= static_cast<double>(size);
  }
  if (encoder.features() > 0) {
    const double width = static_cast<double>(encoder.features());
    parameters += features * width + width;
    features = width;
  }
  return {parameters, features};
}

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
  return text;
}

// Refuses networks, rollouts, replay buffers and envs that would not fit in the memory available
// (MemAvailable, or the cgroup's limit): with a message naming the key of the largest part,
// before a gigabyte is allocated (or a LibTorch allocation trace is printed). `env_bytes`: what
// one env held when made. Returns the networks' part (what a GPU must hold of it).
double check_sizes(const ExperimentOptions& options, const envs::EnvSpec& spec, double env_bytes,
                   const core::ConfigDocument& document) {
  const auto& hidden = options.network.hidden_sizes;
  if (hidden.size() > kMaxHiddenLayers) {
    throw document.error_at("network.hidden_sizes",
                            "network.hidden_sizes has " + std::to_string(hidden.size()) +
                                " layers; at most " + std::to_string(kMaxHiddenLayers));
  }
  const double observation = static_cast<double>(envs::flat_size(spec.observation_space));
  const double action = static_cast<double>(envs::flat_size(spec.action_space));
  // The trunk takes the encoder's features, when there is one (check_encoder has accepted it).
  double encoder = 0.0, trunk_inputs = observation;
  if (const auto options_of_encoder =
          agents::encoder_options(options.network, spec.observation_space)) {
    std::tie(encoder, trunk_inputs) = encoder_parameters(*options_of_encoder);
  }
  // Two networks (actor and critic, or online and target Q), each with its gradient and two
  // Adam moments: 4 floats per parameter.
  const double parameters =
      2 * (encoder + mlp_parameters(trunk_inputs, hidden, std::max(action, 1.0) + 1));
  if (parameters > kMaxNetworkParameters) {
    const std::string key = encoder > 0.0 ? "network.encoder" : "network.hidden_sizes";
    throw document.error_at(
        key, key + (encoder > 0.0 ? " (with the cnn_* keys) and network.hidden_sizes make"
                                  : " makes") +
                 " networks of about " +
                 std::to_string(static_cast<std::int64_t>(parameters / 1e6)) +
                 "M parameters; mnrl's networks are limited to " +
                 std::to_string(static_cast<std::int64_t>(kMaxNetworkParameters / 1e6)) + "M");
  }
  const double network_bytes = parameters * 4 * 4;
  // A replay transition: two observations in their dtype (uint8 ones are a quarter of float32),
  // the action, reward, discount and flags.
  const double observation_bytes =
      observation *
      static_cast<double>(core::element_bytes(envs::element_dtype(spec.observation_space)));
  const double transition = 2 * observation_bytes + (action + 4) * 4;
  const agents::StoredTransitions stored =
      options.algorithm().stored_transitions(options.algorithm_section(), options.env.num_envs);
  const double stored_bytes = stored.count > 0 ? stored.count * transition : 0.0;
  // Every env, for training and for evaluation (one per episode), holds what the one made to
  // check the config held, and a few observations in the vector env's buffers.
  const double env_count = options.env.num_envs + options.train.eval_episodes;
  const double envs_bytes = env_count * (env_bytes + 4 * observation_bytes);
  const double bytes = network_bytes + stored_bytes + envs_bytes;
  const std::optional<core::AvailableMemory> available = core::available_memory();
  if (!available || bytes <= available->bytes) return network_bytes;
  std::string key = "network.hidden_sizes";
  if (stored_bytes > std::max(network_bytes, envs_bytes)) key = stored.key;
  if (envs_bytes > std::max(network_bytes, stored_bytes)) key = "env.num_envs";
  throw document.error_at(
      key, key + ": this run would need about " + gigabytes(bytes) + " of memory (networks " +
               gigabytes(network_bytes) + ", rollout or replay buffer " + gigabytes(stored_bytes) +
               ", " + std::to_string(static_cast<std::int64_t>(env_count)) + " envs " +
               gigabytes(envs_bytes) + "); this machine has " + gigabytes(available->bytes) +
               " " + available->source);
}

// "a2c, ppo and sac": the registered algorithms for which `has` holds.
std::string algorithms_that(const std::function<bool(const agents::Algorithm&)>& has) {
  std::vector<std::string> names;
  for (const std::string& name : agents::AgentRegistry::global().names()) {
    if (has(agents::AgentRegistry::global().at(name))) names.push_back(name);
  }
  return core::listed(names, "and");
}

// train.device: a device name; a GPU only for algorithms with an autograd path, without gSDE
// (whose noise matrices stay on the CPU). Whether a GPU is there is checked when training
// starts (experiments/training/train_device.h): a config trained on a GPU evaluates anywhere.
void check_device(const ExperimentOptions& options, const core::ConfigDocument& document) {
  const std::string& device = options.train.device;
  const bool indexed = device.size() > 5 && device.size() <= 8 && device.rfind("cuda:", 0) == 0 &&
                       device.find_first_not_of("0123456789", 5) == std::string::npos;
  if (device != "cpu" && device != "cuda" && device != "auto" && !indexed) {
    throw document.error_at("train.device", "train.device: '" + core::elided(device) +
                                                "' is not a device: use cpu, cuda, cuda:N (N a "
                                                "GPU index) or auto");
  }
  if (device == "cpu" || device == "auto") return;
  if (!options.algorithm().takes_device()) {
    throw document.error_at("train.device",
                            "train.device: " + options.algo +
                                " trains on the CPU only (its updates are hand-written CPU "
                                "passes); " +
                                device + " works with " +
                                algorithms_that(std::mem_fn(&agents::Algorithm::takes_device)));
  }
  if (uses_sde(options)) {
    const std::string key = options.algo + ".use_sde";
    throw document.error_at("train.device", "train.device: " + device + " with " + key +
                                                ": gSDE exploration trains on the CPU only");
  }
}

// train.cuda_graphs: on asks for a GPU (graphs capture GPU work) and an algorithm whose steps
// can be captured.
void check_cuda_graphs(const ExperimentOptions& options, const core::ConfigDocument& document) {
  if (options.train.cuda_graphs != "on") return;
  if (options.train.device == "cpu") {
    throw document.error_at("train.cuda_graphs",
                            "train.cuda_graphs: on captures GPU work, and train.device is cpu: "
                            "set train.device to cuda (or auto), or train.cuda_graphs to auto");
  }
  if (!options.algorithm().captures_gradient_steps()) {
    throw document.error_at(
        "train.cuda_graphs",
        "train.cuda_graphs: on, but " + options.algo +
            "'s gradient steps are not captured; CUDA graphs work with " +
            algorithms_that(std::mem_fn(&agents::Algorithm::captures_gradient_steps)));
  }
}

// train.precision other than fp32 asks for a GPU's tensor cores: a GPU, and an algorithm that
// trains on one. (Whether the GPU has bfloat16 is checked when training starts.)
void check_precision(const ExperimentOptions& options, const core::ConfigDocument& document) {
  const std::string& precision = options.train.precision;
  if (precision == "fp32") return;
  if (options.train.device == "cpu") {
    throw document.error_at("train.precision",
                            "train.precision: " + precision +
                                " computes on a GPU's tensor cores, and train.device is cpu: set "
                                "train.device to cuda (or auto), or train.precision to fp32");
  }
  if (!options.algorithm().takes_device() || uses_sde(options)) {
    throw document.error_at("train.precision",
                            "train.precision: " + precision + ", but " + options.algo +
                                (uses_sde(options) ? " with gSDE" : "") +
                                " trains on the CPU only; " + precision + " works with " +
                                algorithms_that(std::mem_fn(&agents::Algorithm::takes_device)));
  }
}

// The algorithm's topology is in this program, and distributed.learners is above 1 only where
// the topology has learners (IMPALA, Ape-X).
void check_topology(const ExperimentOptions& options, const core::ConfigDocument& document) {
  const std::string topology = topology_name(options);
  if (!TopologyRegistry::global().contains(topology)) {
    throw document.error_at("algo", "algo: " + options.algo + " trains as topology '" + topology +
                                        "', which this program was built without (link "
                                        "mnrl::topologies, or the library that registers it)");
  }
  if (options.distributed.learners == 1 || topology_kind(options.algorithm()).has_learners())
    return;
  throw document.error_at("distributed.learners",
                          "distributed.learners: " + options.algo +
                              " has no actors and learners (its ranks are replicas or workers); "
                              "several learners work with " +
                              algorithms_that([](const agents::Algorithm& algorithm) {
                                const auto& kinds = TopologyRegistry::global();
                                return kinds.contains(algorithm.topology()) &&
                                       kinds.at(algorithm.topology()).has_learners();
                              }));
}

// train.stop_at_return needs evaluations before the end to be checked at.
void check_stop_at_return(const TrainOptions& train, const core::ConfigDocument& document) {
  if (!train.stop_at_return) return;
  if (train.eval_interval > 0 && train.eval_interval < train.total_steps) return;
  throw document.error_at("train.stop_at_return",
                          "train.stop_at_return is checked at each evaluation, but "
                          "train.eval_interval " +
                              std::to_string(train.eval_interval) +
                              " evaluates only at the end of the run (train.total_steps " +
                              std::to_string(train.total_steps) +
                              "): set train.eval_interval below train.total_steps");
}

// The value of the chosen algorithm's integer key `key` ("learning_starts"), if it has one.
std::optional<std::int64_t> algorithm_integer(const ExperimentOptions& options,
                                              const std::string& key) {
  const auto section = options.algorithm_section().clone();
  for (const core::ConfigKey& listed :
       core::config_keys([&](core::ConfigVisitor& v) { section->visit(v); })) {
    if (listed.path == key && listed.type == "integer") {
      return core::parse_integer(listed.default_value);
    }
  }
  return std::nullopt;
}

// An algorithm with a replay (a learning_starts key: the DQN family, SAC, TD3, DDPG, Ape-X)
// learns once learning_starts env steps have passed and its replay holds a batch; a budget
// that ends before then would train nothing and report success.
void check_learning_starts(const ExperimentOptions& options, const core::ConfigDocument& document) {
  const auto learning_starts = algorithm_integer(options, "learning_starts");
  if (!learning_starts) return;
  const std::int64_t total = options.train.total_steps;
  const std::string budget = "train.total_steps = " + std::to_string(total);
  const std::string key = options.algo + ".learning_starts";
  if (*learning_starts >= total) {
    const std::string value = key + " = " + std::to_string(*learning_starts);
    throw document.error_at(key, value + " is not below " + budget +
                                     ": the run would end before it learns anything; lower " +
                                     key + " or raise train.total_steps");
  }
  const auto batch_size = algorithm_integer(options, "batch_size");
  if (batch_size && *batch_size > total) {
    const std::string batch_key = options.algo + ".batch_size";
    throw document.error_at(batch_key, batch_key + " = " + std::to_string(*batch_size) +
                                           " is more than " + budget +
                                           ": the replay would never hold one batch and the run "
                                           "would learn nothing");
  }
}

// network.recurrent only for the algorithms that build it; a shared trunk needs the memory it
// takes to be shared too.
void check_recurrent(const ExperimentOptions& options, const core::ConfigDocument& document) {
  const agents::NetworkOptions& network = options.network;
  if (!network.recurrent.on()) return;
  if (!options.algorithm().takes_recurrent()) {
    throw document.error_at("network.recurrent.type",
                            "network.recurrent.type: " + options.algo +
                                " takes no recurrent network yet; " + network.recurrent.type +
                                " works with " +
                                algorithms_that(std::mem_fn(&agents::Algorithm::takes_recurrent)));
  }
  if (network.shared_trunk && !network.recurrent.shared) {
    throw document.error_at("network.recurrent.shared",
                            "network.shared_trunk: true needs network.recurrent.shared: true (one "
                            "trunk cannot take the policy's and the value's memories)");
  }
}

// distributed.parameter_servers: for A3C's workers (whose parameters a server holds).
void check_parameter_servers(const ExperimentOptions& options,
                             const core::ConfigDocument& document) {
  const int servers = options.distributed.parameter_servers;
  if (servers == 1 || options.algorithm().takes_parameter_servers()) return;
  throw document.error_at(
      "distributed.parameter_servers",
      "distributed.parameter_servers: " + std::to_string(servers) + ", but " + options.algo +
          " has no parameter server (algorithms with one: " +
          algorithms_that(std::mem_fn(&agents::Algorithm::takes_parameter_servers)) +
          ")");
}

// distributed.pipeline_stages and its companions: an algorithm whose gradient steps pipeline,
// a network that cuts into that many stages, on the CPU, minibatches of at least
// micro_batches rows.
void check_pipeline(const ExperimentOptions& options, const core::ConfigDocument& document) {
  const DistributedOptions& d = options.distributed;
  const int stages = d.pipeline_stages;
  if (stages == 1) {
    if (!d.stage_boundaries.empty()) {
      throw document.error_at("distributed.stage_boundaries",
                              "distributed.stage_boundaries: set with distributed.pipeline_stages "
                              "1 (nothing to cut)");
    }
    return;
  }
  const std::string what = "distributed.pipeline_stages: " + std::to_string(stages) + ", but ";
  if (!options.algorithm().takes_pipeline_stages()) {
    throw document.error_at("distributed.pipeline_stages",
                            what + options.algo + " does not cut its network into stages; " +
                                algorithms_that(std::mem_fn(
                                    &agents::Algorithm::takes_pipeline_stages)) +
                                " do");
  }
  const std::string refusal = options.algorithm().pipeline_refusal(options.algorithm_section());
  if (!refusal.empty()) {
    throw document.error_at("distributed.pipeline_stages", what + refusal);
  }
  if (options.network.recurrent.on() || uses_sde(options)) {
    throw document.error_at("distributed.pipeline_stages",
                            what + (uses_sde(options) ? "gSDE's exploration matrices"
                                                      : "network.recurrent's memory") +
                                " do not cut into stages");
  }
  if (options.train.device != "cpu") {
    throw document.error_at("distributed.pipeline_stages",
                            what + "train.device is " + options.train.device +
                                "; pipeline stages run on the CPU (train.device: cpu)");
  }
  const bool encoder = options.network.encoder != "mlp";
  const auto blocks =
      static_cast<std::int64_t>(options.network.hidden_sizes.size()) + (encoder ? 2 : 1);
  if (stages > blocks) {
    throw document.error_at(
        "distributed.pipeline_stages",
        what + "the network has " + std::to_string(blocks) + " blocks to cut (" +
            (encoder ? "the encoder, " : "") + std::to_string(options.network.hidden_sizes.size()) +
            " trunk layer(s), the heads): at most one stage each");
  }
  if (!d.stage_boundaries.empty()) {
    if (static_cast<int>(d.stage_boundaries.size()) != stages - 1) {
      throw document.error_at("distributed.stage_boundaries",
                              "distributed.stage_boundaries: " +
                                  std::to_string(d.stage_boundaries.size()) +
                                  " boundaries for " + std::to_string(stages) +
                                  " stages (one fewer than the stages: the first block of "
                                  "stages 1.." + std::to_string(stages - 1) + ")");
    }
    for (std::size_t i = 0; i < d.stage_boundaries.size(); ++i) {
      const std::int64_t b = d.stage_boundaries[i];
      const std::int64_t before = i == 0 ? 0 : d.stage_boundaries[i - 1];
      if (b <= before || b >= blocks) {
        throw document.error_at("distributed.stage_boundaries",
                                "distributed.stage_boundaries: " + std::to_string(b) +
                                    " must be above " + std::to_string(before) +
                                    " and below the network's " + std::to_string(blocks) +
                                    " blocks");
      }
    }
  }
  const agents::StoredTransitions rows =
      options.algorithm().gradient_step_rows(options.algorithm_section(), options.env.num_envs);
  if (rows.count < d.micro_batches) {
    throw document.error_at("distributed.micro_batches",
                            "distributed.micro_batches: " + std::to_string(d.micro_batches) +
                                " micro-batches of a gradient step of " +
                                core::format_number(rows.count) + " rows (" + rows.key + ")");
  }
}

// network.encoder against the observations, and the cnn_* keys only with an encoder.
void check_encoder(const ExperimentOptions& options, const envs::EnvSpec& spec,
                   const core::ConfigDocument& document) {
  const agents::NetworkOptions& network = options.network;
  if (network.encoder == "mlp") {
    const std::pair<const char*, bool> set[] = {
        {"cnn_channels", !network.cnn_channels.empty()},
        {"cnn_kernel_sizes", !network.cnn_kernel_sizes.empty()},
        {"cnn_strides", !network.cnn_strides.empty()},
        {"cnn_features", network.cnn_features >= 0}};
    for (const auto& [key, is_set] : set) {
      if (!is_set) continue;
      const std::string path = std::string("network.") + key;
      throw document.error_at(path, path +
                                        " shapes a convolutional encoder; set network.encoder "
                                        "(minatar_cnn or nature_cnn) to use one");
    }
    return;
  }
  if (!options.algorithm().takes_encoder()) {
    throw document.error_at("network.encoder",
                            "network.encoder: " + options.algo +
                                " takes flat observations through MLPs; a convolutional encoder (" +
                                network.encoder + ") works with " +
                                algorithms_that(std::mem_fn(&agents::Algorithm::takes_encoder)));
  }
  try {
    agents::encoder_options(network, spec.observation_space);
  } catch (const std::invalid_argument& e) {
    throw document.error_at("network.encoder", std::string("network.encoder: ") + e.what());
  }
}

}  // namespace

std::string resolved_config_yaml(const ExperimentOptions& options) {
  ExperimentOptions resolved = options;  // visit() is not const: it also reads
  return core::to_yaml([&](core::ConfigVisitor& v) { resolved.visit(v); });
}

ExperimentOptions load_experiment(const std::string& path,
                                  const std::vector<std::string>& overrides) {
  return read_experiment(core::ConfigDocument::parse_file(path), overrides,
                         fs::absolute(path).parent_path());
}

ExperimentOptions parse_experiment(const std::string& yaml, const std::string& source_name,
                                   const std::vector<std::string>& overrides) {
  return read_experiment(core::ConfigDocument::parse_string(yaml, source_name), overrides,
                         fs::current_path());
}

bool uses_sde(const ExperimentOptions& options) {
  return options.algorithm().uses_sde(options.algorithm_section());
}

namespace {

// The name becomes a directory under runs/: one path component, never "/x" or "../x".
void check_run_name(const std::string& name, const core::ConfigDocument& document) {
  const bool safe_name = !name.empty() && name.size() <= 100 && name[0] != '.' &&
                         name.find_first_not_of(
                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789._-") == std::string::npos;
  if (safe_name) return;
  throw document.error_at("name", "name: '" + core::elided(name) +
                                      "' cannot name a run directory: "
                                      "use 1 to 100 letters, digits, '.', '_' or '-', not "
                                      "starting with '.'");
}

// env.id registered (loading env.plugin first) and its kwargs accepted.
void check_env_id(const envs::EnvOptions& env, const core::ConfigDocument& document) {
  // An env already registered (by --plugin) is taken from there: --plugin overrides env.plugin,
  // for a run whose plugin has moved.
  if (!env.plugin.empty() && !envs::Registry::global().contains(env.id)) {
    try {
      envs::load_plugin(env.plugin);
    } catch (const envs::PluginError& e) {
      throw document.error_at("env.plugin", std::string("env.plugin: ") + e.what());
    }
  }
  const auto& registry = envs::Registry::global();
  if (!registry.contains(env.id)) {
    throw document.error_at("env.id", "env.id: unknown environment '" + core::elided(env.id) + "'" +
                                          core::did_you_mean(env.id, registry.ids()) +
                                          "; registered: " + core::join(registry.ids()));
  }
  try {
    registry.make(env.id, env.kwargs);
  } catch (const core::KwargError& e) {
    // Located where the argument was written, or in the file if env.kwargs is not in it.
    const bool located = !env.kwargs.location().empty();
    throw core::ConfigError(located ? e.what() : document.source_name() + ": " + e.what());
  } catch (const std::exception& e) {
    throw document.error_at("env.id", std::string("env.id: ") + e.what());
  }
}

// The env with its wrappers, and the heap bytes it took (for the memory check).
std::pair<std::unique_ptr<envs::Env>, double> wrapped_env(const envs::EnvOptions& env,
                                                          const core::ConfigDocument& document) {
  try {
    envs::check_wrappers(env.wrappers);  // its messages name the entry
  } catch (const std::invalid_argument& e) {
    throw document.error_at("env.wrappers", e.what());
  }
  const double heap_before = heap_bytes_in_use();
  std::unique_ptr<envs::Env> made;
  try {
    made = envs::make_env(env);
  } catch (const std::invalid_argument& e) {
    throw document.error_at("env.wrappers", std::string("env.wrappers: ") + e.what());
  }
  const double bytes = std::max(0.0, heap_bytes_in_use() - heap_before);
  try {
    envs::check_batch_wrappers_fit(env, made->spec().observation_space);
  } catch (const std::invalid_argument& e) {
    throw document.error_at("env.wrappers", e.what());
  }
  return {std::move(made), bytes};
}

// gSDE needs Box actions, network.squash_output bounded ones.
void check_action_space(const ExperimentOptions& options, const envs::Space& actions,
                        const core::ConfigDocument& document) {
  const auto* box = std::get_if<envs::Box>(&actions);
  if (uses_sde(options) && !box) {
    const std::string key = options.algo + ".use_sde";
    throw document.error_at(key, key + ": gSDE explores continuous actions; '" + options.env.id +
                                     "' has " + envs::describe(actions));
  }
  if (!box || !options.network.squash_output) return;
  for (std::size_t k = 0; k < box->low.size(); ++k) {
    if (!std::isfinite(box->low[k]) || !std::isfinite(box->high[k])) {
      throw document.error_at("network.squash_output",
                              "network.squash_output: the action space " + envs::describe(*box) +
                                  " of '" + options.env.id +
                                  "' is unbounded; squashing needs finite bounds");
    }
  }
}

}  // namespace

double validate_experiment(const ExperimentOptions& options, const core::ConfigDocument& document) {
  // What the config decides alone, with no side effects...
  check_run_name(options.name, document);
  check_device(options, document);
  check_cuda_graphs(options, document);
  check_precision(options, document);
  check_topology(options, document);
  check_recurrent(options, document);
  check_pipeline(options, document);
  check_parameter_servers(options, document);
  check_learning_starts(options, document);
  check_stop_at_return(options.train, document);
  // ...and only then what needs the env: its plugin loaded (registering its envs), one env
  // built with its wrappers, and the algorithm, network and memory checked against its spec.
  check_env_id(options.env, document);
  const auto [env, env_bytes] = wrapped_env(options.env, document);
  const envs::EnvSpec& spec = env->spec();
  options.algorithm().validate(options.algorithm_section(),
                               {document, options.env, spec, options.network});
  check_encoder(options, spec, document);
  const double network_bytes = check_sizes(options, spec, env_bytes, document);
  check_action_space(options, spec.action_space, document);
  return network_bytes;
}

}  // namespace mnrl::experiments
