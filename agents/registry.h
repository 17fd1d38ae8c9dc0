#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent.h"
#include "agents/agent_setup.h"
#include "core/config.h"

namespace mnrl::agents {

// An algorithm's YAML section (`ppo:`) behind one type: its Options struct, copied deeply.
class AlgorithmSection {
 public:
  virtual ~AlgorithmSection() = default;
  virtual void visit(core::ConfigVisitor& v) = 0;
  virtual std::unique_ptr<AlgorithmSection> clone() const = 0;
};

template <class Options>
class SectionOf final : public AlgorithmSection {
 public:
  void visit(core::ConfigVisitor& v) override { options.visit(v); }
  std::unique_ptr<AlgorithmSection> clone() const override {
    return std::make_unique<SectionOf>(*this);
  }
  Options options;
};

// What a run's floats in rollouts or replay amount to, for the memory check before a run.
struct StoredTransitions {
  std::string key;     // the key that sets it ("ppo.n_steps"), named in the message
  double count = 0.0;  // transitions held at once
};

// A registered algorithm: everything about it that is not in its agent class. Subclasses
// derive from AlgorithmOf<Options> and register with MNRL_REGISTER_AGENT.
class Algorithm {
 public:
  virtual ~Algorithm() = default;

  // The section's help line in the key reference ("PPO hyperparameters (algo: ppo)").
  virtual std::string summary() const = 0;
  // How its agents are arranged in training: the name of a registered topology
  // (experiments/training/topology_registry.h). "replicas": one agent per process, its
  // gradients averaged over the ranks of a job; others register with the code that runs them
  // (topologies/: A3C's workers, IMPALA's and Ape-X's actors and learners).
  virtual std::string topology() const { return "replicas"; }
  virtual std::unique_ptr<AlgorithmSection> default_section() const = 0;

  // Checks that span keys or need the env: throws core::ConfigError through
  // check.document.error_at, naming the key.
  virtual void validate(const AlgorithmSection& section, const AgentCheck& check) const = 0;
  // The agent, its networks initialized from LibTorch's generator as it stands (the caller
  // seeds it), its gradients passed through setup.gradient_hook.
  virtual std::unique_ptr<Agent> make_agent(const AlgorithmSection& section,
                                            const AgentSetup& setup) const = 0;
  // distributed.lr_scaling: linear multiplies the learning rates by `factor` (the rank count).
  virtual void scale_learning_rate(AlgorithmSection& section, double factor) const = 0;
  virtual StoredTransitions stored_transitions(const AlgorithmSection& section,
                                               std::int64_t num_envs) const = 0;
  // Whether the section asks for gSDE exploration (Box actions only).
  virtual bool uses_sde(const AlgorithmSection&) const { return false; }
  // The rows of one gradient step and the key that sets them (a pipeline splits them into
  // micro-batches); {"", 0} where the algorithm does not say.
  virtual StoredTransitions gradient_step_rows(const AlgorithmSection&,
                                               std::int64_t /*num_envs*/) const {
    return {};
  }
  // Whether its agents build network.encoder (a convolutional encoder for images); the others
  // are refused one.
  virtual bool takes_encoder() const { return false; }
  // Whether its agents build network.recurrent (policies with memory); the others are refused
  // one.
  virtual bool takes_recurrent() const { return false; }
  // Whether its agents' gradient steps can run on a network cut into pipeline stages across
  // ranks (distributed.pipeline_stages: ActorCriticAgent's external gradient steps, Dqn's
  // external TD steps); and why the section's network does not cut after all (empty: it does).
  virtual bool takes_pipeline_stages() const { return false; }
  virtual std::string pipeline_refusal(const AlgorithmSection&) const { return {}; }
  // Whether its workers share their parameters through parameter servers across ranks
  // (distributed.parameter_servers shards them).
  virtual bool takes_parameter_servers() const { return false; }
  // Whether its agents train on a GPU (train.device: cuda): they have an autograd path besides
  // the hand-written CPU passes. The others are refused any device but the CPU.
  virtual bool takes_device() const { return false; }
  // Whether its agents on a GPU can run their gradient steps as CUDA graphs (train.cuda_graphs).
  virtual bool captures_gradient_steps() const { return false; }
};

// An Algorithm whose section is `Options`: subclasses implement the typed hooks.
template <class Options>
class AlgorithmOf : public Algorithm {
 public:
  using Section = SectionOf<Options>;

  std::unique_ptr<AlgorithmSection> default_section() const final {
    return std::make_unique<Section>();
  }
  void validate(const AlgorithmSection& section, const AgentCheck& check) const final {
    check_options(of(section), check);
  }
  std::unique_ptr<Agent> make_agent(const AlgorithmSection& section,
                                    const AgentSetup& setup) const final {
    return make(of(section), setup);
  }
  void scale_learning_rate(AlgorithmSection& section, double factor) const final {
    scale(dynamic_cast<Section&>(section).options, factor);
  }
  StoredTransitions stored_transitions(const AlgorithmSection& section,
                                       std::int64_t num_envs) const final {
    return stored(of(section), num_envs);
  }
  bool uses_sde(const AlgorithmSection& section) const final { return sde(of(section)); }
  StoredTransitions gradient_step_rows(const AlgorithmSection& section,
                                       std::int64_t num_envs) const final {
    return step_rows(of(section), num_envs);
  }
  std::string pipeline_refusal(const AlgorithmSection& section) const final {
    return pipeline_refused(of(section));
  }

 protected:
  virtual void check_options(const Options&, const AgentCheck&) const {}
  virtual std::unique_ptr<Agent> make(const Options& options, const AgentSetup& setup) const = 0;
  virtual void scale(Options& options, double factor) const = 0;
  virtual StoredTransitions stored(const Options& options, std::int64_t num_envs) const = 0;
  virtual bool sde(const Options&) const { return false; }
  virtual StoredTransitions step_rows(const Options&, std::int64_t /*num_envs*/) const {
    return {};
  }
  virtual std::string pipeline_refused(const Options&) const { return {}; }

  static const Options& of(const AlgorithmSection& section) {
    return dynamic_cast<const Section&>(section).options;
  }
};

// Algorithms by their `algo:` name. Those built into a program register themselves with
// MNRL_REGISTER_AGENT; a program that embeds mnrl may add its own before reading a config.
// Not thread-safe: register before reading configs.
class AgentRegistry {
 public:
  static AgentRegistry& global();

  // Throws std::invalid_argument if `name` is taken.
  void add(const std::string& name, std::shared_ptr<const Algorithm> algorithm);
  bool contains(const std::string& name) const;
  // Throws std::invalid_argument naming the registered algorithms.
  const Algorithm& at(const std::string& name) const;
  std::vector<std::string> names() const;  // sorted

 private:
  std::map<std::string, std::shared_ptr<const Algorithm>> algorithms_;
};

// The sections of every registered algorithm (`ppo:`, `dqn:`, ...), with their defaults until a
// config sets them: a config may hold the sections of algorithms it does not run.
class AlgorithmSections {
 public:
  AlgorithmSections();  // from AgentRegistry::global()
  AlgorithmSections(const AlgorithmSections& other);
  AlgorithmSections& operator=(const AlgorithmSections& other);
  AlgorithmSections(AlgorithmSections&&) noexcept = default;
  AlgorithmSections& operator=(AlgorithmSections&&) noexcept = default;

  // Visits each section under its algorithm's name.
  void visit(core::ConfigVisitor& v);

  AlgorithmSection& at(const std::string& name);
  const AlgorithmSection& at(const std::string& name) const;

  // The section whose Options type is `Options` (the first, should two algorithms share one).
  template <class Options>
  Options& get() {
    for (auto& [name, section] : sections_) {
      if (auto* typed = dynamic_cast<SectionOf<Options>*>(section.get())) return typed->options;
    }
    throw std::invalid_argument("no registered algorithm has these options");
  }
  template <class Options>
  const Options& get() const {
    return const_cast<AlgorithmSections*>(this)->get<Options>();
  }

 private:
  std::map<std::string, std::unique_ptr<AlgorithmSection>> sections_;
};

}  // namespace mnrl::agents

// MNRL_REGISTER_AGENT("ppo", PpoAlgorithm): registers a default-constructed Algorithm subclass
// into the global registry at static initialization.
#define MNRL_REGISTER_AGENT_CONCAT2(a, b) a##b
#define MNRL_REGISTER_AGENT_CONCAT(a, b) MNRL_REGISTER_AGENT_CONCAT2(a, b)
#define MNRL_REGISTER_AGENT(name, Type)                                                   \
  static const bool MNRL_REGISTER_AGENT_CONCAT(mnrl_registered_agent_, __COUNTER__) = [] {   \
    ::mnrl::agents::AgentRegistry::global().add(name, std::make_shared<const Type>());    \
    return true;                                                                           \
  }()
