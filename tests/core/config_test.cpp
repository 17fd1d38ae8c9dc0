#include "core/config.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>

namespace mnrl::core {
namespace {

// A config shaped like a real experiment's: top-level fields, sections, a nested section.
struct InitOptions {
  double gain = 1.0;
  void visit(ConfigVisitor& v) { v.field("gain", gain, "weight init gain", greater_than(0)); }
};

struct NetworkOptions {
  std::vector<std::int64_t> hidden_sizes{64, 64};
  std::string activation = "tanh";
  InitOptions init;
  void visit(ConfigVisitor& v) {
    v.field("hidden_sizes", hidden_sizes, "hidden layer widths", at_least(1));
    v.field("activation", activation, "activation function", one_of({"tanh", "relu"}));
    v.section("init", init, "weight initialisation");
  }
};

struct PpoOptions {
  std::int64_t n_steps = 2048;
  int n_epochs = 10;
  double gamma = 0.99;
  double learning_rate = 3e-4;
  std::optional<double> target_kl;
  double max_grad_norm = 0.5;
  bool normalize_advantages = true;
  void visit(ConfigVisitor& v) {
    v.field("n_steps", n_steps, "rollout length per env", at_least(1));
    v.field("n_epochs", n_epochs, "epochs per update", at_least(1));
    v.field("gamma", gamma, "discount factor", between(0, 1));
    v.field("learning_rate", learning_rate, "Adam step size", greater_than(0));
    v.field("target_kl", target_kl, "early stop threshold", greater_than(0));
    v.field("max_grad_norm", max_grad_norm, "gradient clipping", at_least(0));
    v.field("normalize_advantages", normalize_advantages, "normalise advantages per batch");
  }
};

struct TestOptions {
  std::string env = "CartPole-v1";
  std::int64_t seed = 0;
  double offset = 0.0;  // no limits
  std::string run_name;
  PpoOptions ppo;
  NetworkOptions network;
  void visit(ConfigVisitor& v) {
    v.field("env", env, "environment id");
    v.field("seed", seed, "experiment seed");
    v.field("offset", offset, "an unbounded number");
    v.field("run_name", run_name, "run name");
    v.section("ppo", ppo, "PPO");
    v.section("network", network, "policy network");
  }
};

bool operator==(const TestOptions& a, const TestOptions& b) {
  return a.env == b.env && a.seed == b.seed && a.offset == b.offset && a.run_name == b.run_name &&
         a.ppo.n_steps == b.ppo.n_steps && a.ppo.n_epochs == b.ppo.n_epochs &&
         a.ppo.gamma == b.ppo.gamma && a.ppo.learning_rate == b.ppo.learning_rate &&
         a.ppo.target_kl == b.ppo.target_kl && a.ppo.max_grad_norm == b.ppo.max_grad_norm &&
         a.ppo.normalize_advantages == b.ppo.normalize_advantages &&
         a.network.hidden_sizes == b.network.hidden_sizes &&
         a.network.activation == b.network.activation && a.network.init.gain == b.network.init.gain;
}

TestOptions read(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  auto doc = ConfigDocument::parse_string(yaml, "test.yaml");
  for (const auto& assignment : sets) doc.set(assignment);
  TestOptions options;
  doc.read_into(options);
  return options;
}

// The message of the ConfigError that `action` throws ("" and a test failure if none).
std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError";
  return "";
}

std::string read_error(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return error_of([&] { read(yaml, sets); });
}

std::string set_error(const std::string& yaml, const std::string& assignment) {
  auto doc = ConfigDocument::parse_string(yaml, "test.yaml");
  return error_of([&] { doc.set(assignment); });
}

// A file under the test temp dir, removed when the test ends.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& contents)
      : path_(testing::TempDir() + name) {
    std::ofstream(path_) << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// ---------------------------------------------------------------------------------------------

TEST(ConfigReadTest, EmptyOrCommentOnlyDocumentKeepsAllDefaults) {
  EXPECT_EQ(read(""), TestOptions{});
  EXPECT_EQ(read("# nothing set yet\n"), TestOptions{});
}

TEST(ConfigReadTest, ReadsEveryFieldType) {
  const auto options = read(R"(
env: Pendulum-v1
seed: -7
run_name: baseline
ppo:
  n_steps: 128
  n_epochs: 4
  gamma: 0.95
  learning_rate: 1e-3
  target_kl: 0.02
  normalize_advantages: false
network:
  hidden_sizes: [256, 128]
  activation: relu
  init:
    gain: 0.01
)");
  EXPECT_EQ(options.env, "Pendulum-v1");
  EXPECT_EQ(options.seed, -7);
  EXPECT_EQ(options.run_name, "baseline");
  EXPECT_EQ(options.ppo.n_steps, 128);
  EXPECT_EQ(options.ppo.n_epochs, 4);
  EXPECT_EQ(options.ppo.gamma, 0.95);
  EXPECT_EQ(options.ppo.learning_rate, 1e-3);
  EXPECT_EQ(options.ppo.target_kl, 0.02);
  EXPECT_FALSE(options.ppo.normalize_advantages);
  EXPECT_EQ(options.network.hidden_sizes, (std::vector<std::int64_t>{256, 128}));
  EXPECT_EQ(options.network.activation, "relu");
  EXPECT_EQ(options.network.init.gain, 0.01);
}

TEST(ConfigReadTest, AbsentKeysAndSectionsKeepDefaults) {
  const auto options = read("ppo:\n  gamma: 0.9\n");
  TestOptions expected;
  expected.ppo.gamma = 0.9;
  EXPECT_EQ(options, expected);
}

TEST(ConfigReadTest, NullSectionKeepsDefaults) {
  EXPECT_EQ(read("ppo:\n  # gamma: 0.9\nnetwork: ~\n"), TestOptions{});
}

TEST(ConfigReadTest, IntegersAcceptWholeFloatsAndHex) {
  const auto options = read("seed: 0x10\nppo:\n  n_steps: 1e5\n  n_epochs: 100000.0\n");
  EXPECT_EQ(options.seed, 16);
  EXPECT_EQ(options.ppo.n_steps, 100000);
  EXPECT_EQ(options.ppo.n_epochs, 100000);
  EXPECT_EQ(read("network:\n  hidden_sizes: [1e3, 2.0e2]\n").network.hidden_sizes,
            (std::vector<std::int64_t>{1000, 200}));
  EXPECT_EQ(read("seed: -9223372036854775808\n").seed, std::numeric_limits<std::int64_t>::min());
}

TEST(ConfigReadTest, IntegersRejectFractions) {
  EXPECT_EQ(read_error("ppo:\n  n_steps: 1.5\n"),
            "test.yaml:2:12: ppo.n_steps: expected an integer, got '1.5'");
  EXPECT_EQ(read_error("ppo:\n  n_epochs: 2.5e-1\n"),
            "test.yaml:2:13: ppo.n_epochs: expected an integer, got '2.5e-1'");
  EXPECT_EQ(read_error("seed: .inf\n"), "test.yaml:1:7: seed: expected an integer, got '.inf'");
}

TEST(ConfigReadTest, IntegersRejectValuesOutsideTheirType) {
  EXPECT_EQ(read_error("ppo:\n  n_epochs: 3e9\n"),
            "test.yaml:2:13: ppo.n_epochs = 3e9 does not fit in the integer type: must be in "
            "[-2147483648, 2147483647]");
  EXPECT_EQ(read_error("seed: 9223372036854775808\n"),
            "test.yaml:1:7: seed = 9223372036854775808 does not fit in the integer type: must be "
            "in [-9223372036854775808, 9223372036854775807]");
  EXPECT_EQ(read_error("seed: 1e30\n"),
            "test.yaml:1:7: seed = 1e30 does not fit in the integer type: must be in "
            "[-9223372036854775808, 9223372036854775807]");
}

TEST(ConfigReadTest, IntegersApplyLimits) {
  EXPECT_EQ(read_error("ppo:\n  n_steps: 0\n"),
            "test.yaml:2:12: ppo.n_steps = 0 is out of range: must be >= 1");
}

TEST(ConfigReadTest, BoolsAcceptYamlBooleansOnly) {
  EXPECT_FALSE(read("ppo:\n  normalize_advantages: no\n").ppo.normalize_advantages);
  EXPECT_FALSE(read("ppo:\n  normalize_advantages: off\n").ppo.normalize_advantages);
  EXPECT_TRUE(read("ppo:\n  normalize_advantages: yes\n").ppo.normalize_advantages);
  EXPECT_TRUE(read("ppo:\n  normalize_advantages: True\n").ppo.normalize_advantages);
  EXPECT_EQ(read_error("ppo:\n  normalize_advantages: 1\n"),
            "test.yaml:2:25: ppo.normalize_advantages: expected true or false, got '1'");
}

TEST(ConfigReadTest, NumbersReportWhatWasFound) {
  EXPECT_EQ(read_error("ppo:\n  n_steps: 8\n  gamma: abc\n"),
            "test.yaml:3:10: ppo.gamma: expected a number, got 'abc'");
  EXPECT_EQ(read_error("ppo:\n  gamma: [0.9]\n"),
            "test.yaml:2:10: ppo.gamma: expected a number, got a sequence");
  EXPECT_EQ(read_error("ppo:\n  gamma:\n"),
            "test.yaml:2:3: ppo.gamma: expected a number, got null");
  // from_chars would read these; YAML does not.
  EXPECT_EQ(read_error("offset: inf\n"), "test.yaml:1:9: offset: expected a number, got 'inf'");
  EXPECT_EQ(read_error("offset: 0x1p3\n"), "test.yaml:1:9: offset: expected a number, got '0x1p3'");
}

TEST(ConfigReadTest, NumbersOutOfRange) {
  EXPECT_EQ(read_error("ppo:\n  gamma: 1.5\n"),
            "test.yaml:2:10: ppo.gamma = 1.5 is out of range: must be in [0, 1]");
  EXPECT_EQ(read_error("ppo:\n  learning_rate: 0\n"),
            "test.yaml:2:18: ppo.learning_rate = 0 is out of range: must be > 0");
  EXPECT_EQ(read_error("ppo:\n  gamma: -.inf\n"),
            "test.yaml:2:10: ppo.gamma = -.inf is out of range: a number in a config must be "
            "finite and at most 1e9 in magnitude");
  EXPECT_EQ(read_error("ppo:\n  learning_rate: 1e38\n"),
            "test.yaml:2:18: ppo.learning_rate = 1e38 is out of range: a number in a config "
            "must be finite and at most 1e9 in magnitude");
}

TEST(ConfigReadTest, NanIsNeverAllowed) {
  EXPECT_EQ(read_error("ppo:\n  gamma: .nan\n"),
            "test.yaml:2:10: ppo.gamma: expected a number (NaN is never allowed), got '.nan'");
  EXPECT_EQ(read_error("offset: .NaN\n"),
            "test.yaml:1:9: offset: expected a number (NaN is never allowed), got '.NaN'");
}

// An infinite learning rate or coefficient passes any lower bound and ruins the run.
TEST(ConfigReadTest, InfinityIsNeverAllowed) {
  EXPECT_EQ(read_error("ppo:\n  max_grad_norm: .inf\n"),
            "test.yaml:2:18: ppo.max_grad_norm = .inf is out of range: a number in a config "
            "must be finite and at most 1e9 in magnitude");
  EXPECT_EQ(read_error("offset: -.Inf\n"),
            "test.yaml:1:9: offset = -.Inf is out of range: a number in a config must be finite "
            "and at most 1e9 in magnitude");
  EXPECT_EQ(read_error("", {"ppo.learning_rate=.inf"}),
            "--set ppo.learning_rate=.inf: ppo.learning_rate = .inf is out of range: a number "
            "in a config must be finite and at most 1e9 in magnitude");
}

TEST(ConfigReadTest, OptionalNumberAcceptsNull) {
  EXPECT_EQ(read("ppo:\n  target_kl: 0.01\n").ppo.target_kl, 0.01);
  EXPECT_EQ(read("ppo:\n  target_kl: null\n").ppo.target_kl, std::nullopt);
  EXPECT_EQ(read("ppo:\n  target_kl: ~\n").ppo.target_kl, std::nullopt);
  EXPECT_EQ(read_error("ppo:\n  target_kl: -1\n"),
            "test.yaml:2:14: ppo.target_kl = -1 is out of range: must be > 0");
}

TEST(ConfigReadTest, StringsAcceptAnyScalar) {
  EXPECT_EQ(read("run_name: 42\n").run_name, "42");
  EXPECT_EQ(read("run_name: ''\n").run_name, "");
  EXPECT_EQ(read("run_name: \"true\"\n").run_name, "true");
  EXPECT_EQ(read_error("run_name:\n"),
            "test.yaml:1:1: run_name: expected a string (write '' for an empty one), got null");
  EXPECT_EQ(read_error("run_name: {a: 1}\n"),
            "test.yaml:1:11: run_name: expected a string, got a mapping");
}

TEST(ConfigReadTest, StringChoicesSuggestTheClosest) {
  EXPECT_EQ(read_error("network:\n  activation: tahn\n"),
            "test.yaml:2:15: network.activation = 'tahn' is not one of: tanh, relu "
            "(did you mean 'tanh'?)");
  EXPECT_EQ(read_error("network:\n  activation: sigmoid\n"),
            "test.yaml:2:15: network.activation = 'sigmoid' is not one of: tanh, relu");
}

TEST(ConfigReadTest, SequencesOfIntegers) {
  EXPECT_TRUE(read("network:\n  hidden_sizes: []\n").network.hidden_sizes.empty());
  EXPECT_EQ(read("network:\n  hidden_sizes:\n    - 32\n    - 16\n").network.hidden_sizes,
            (std::vector<std::int64_t>{32, 16}));
  EXPECT_EQ(read_error("network:\n  hidden_sizes: [64, x]\n"),
            "test.yaml:2:22: network.hidden_sizes[1]: expected an integer, got 'x'");
  EXPECT_EQ(read_error("network:\n  hidden_sizes:\n    - 64\n    - 0\n"),
            "test.yaml:4:7: network.hidden_sizes[1] = 0 is out of range: must be >= 1");
  EXPECT_EQ(read_error("network:\n  hidden_sizes: 64\n"),
            "test.yaml:2:17: network.hidden_sizes: expected a sequence of integers like [64, 64] "
            "(write [x] for a single value), got '64'");
}

TEST(ConfigReadTest, UnknownKeySuggestsTheClosestField) {
  EXPECT_EQ(read_error("ppo:\n  n_steps: 8\n  gama: 0.9\n"),
            "test.yaml:3:3: unknown key 'ppo.gama' (did you mean 'gamma'?)");
  EXPECT_EQ(read_error("seed: 1\nppoo:\n  gamma: 0.9\n"),
            "test.yaml:2:1: unknown key 'ppoo' (did you mean 'ppo'?)");
  EXPECT_EQ(read_error("network:\n  init:\n    gian: 2\n"),
            "test.yaml:3:5: unknown key 'network.init.gian' (did you mean 'gain'?)");
}

// A config with several wrong keys names them all in one message, in the order of the file
// (--set ones last), each with its place and its hint.
TEST(ConfigReadTest, EveryUnknownKeyIsReportedAtOnce) {
  EXPECT_EQ(read_error("seeed: 1\nppo:\n  gama: 0.9\n  n_step: 8\nnetwork:\n  dropout: 0.1\n",
                       {"ppo.epochs=3"}),
            "test.yaml:1:1: unknown key 'seeed' (did you mean 'seed'?)\n"
            "test.yaml:3:3: unknown key 'ppo.gama' (did you mean 'gamma'?)\n"
            "test.yaml:4:3: unknown key 'ppo.n_step' (did you mean 'n_steps'?)\n"
            "test.yaml:6:3: unknown key 'network.dropout'; keys in 'network' are: hidden_sizes, "
            "activation, init\n"
            "--set ppo.epochs=3: unknown key 'ppo.epochs' (did you mean 'n_epochs'?)");
}

TEST(ConfigReadTest, UnknownKeyWithoutCloseMatchListsTheKeys) {
  EXPECT_EQ(read_error("network:\n  dropout: 0.1\n"),
            "test.yaml:2:3: unknown key 'network.dropout'; keys in 'network' are: hidden_sizes, "
            "activation, init");
  EXPECT_EQ(read_error("algorithm: ppo\n"),
            "test.yaml:1:1: unknown key 'algorithm'; top-level keys are: env, seed, offset, "
            "run_name, ppo, network");
}

TEST(ConfigReadTest, SectionMustBeAMapping) {
  EXPECT_EQ(read_error("ppo: 3\n"),
            "test.yaml:1:6: ppo: expected a section of keys (a mapping), got '3'");
  EXPECT_EQ(read_error("network:\n  init: [1]\n"),
            "test.yaml:2:9: network.init: expected a section of keys (a mapping), got a sequence");
}

TEST(ConfigParseTest, MalformedYamlGivesLineAndColumn) {
  EXPECT_EQ(
      error_of([] { ConfigDocument::parse_string("seed: 1\nppo:\n  gamma: [0.9\n", "x.yaml"); }),
      "x.yaml:4:1: malformed YAML: end of sequence flow not found");
  EXPECT_EQ(error_of([] { ConfigDocument::parse_string("seed: 1\n  gamma: 2\n", "x.yaml"); }),
            "x.yaml:2:8: malformed YAML: illegal map value");
}

TEST(ConfigParseTest, RootMustBeOneMapping) {
  EXPECT_EQ(error_of([] { ConfigDocument::parse_string("- 1\n- 2\n", "x.yaml"); }),
            "x.yaml:1:1: expected a mapping of keys at the top level (like 'seed: 1'), got a "
            "sequence");
  EXPECT_EQ(error_of([] { ConfigDocument::parse_string("just text\n", "x.yaml"); }),
            "x.yaml:1:1: expected a mapping of keys at the top level (like 'seed: 1'), got "
            "'just text'");
  EXPECT_EQ(error_of([] { ConfigDocument::parse_string("seed: 1\n---\nseed: 2\n", "x.yaml"); }),
            "x.yaml:3:1: expected a single YAML document, found 2 (separated by '---')");
}

TEST(ConfigParseTest, DuplicateKeysNameBothLines) {
  EXPECT_EQ(error_of([] { ConfigDocument::parse_string("seed: 1\nenv: x\nseed: 2\n", "x.yaml"); }),
            "x.yaml:3:1: duplicate key 'seed' (first defined at x.yaml:1:1)");
  EXPECT_EQ(error_of([] {
              ConfigDocument::parse_string("ppo:\n  gamma: 0.9\n  n_steps: 8\n  gamma: 0.8\n",
                                           "x.yaml");
            }),
            "x.yaml:4:3: duplicate key 'ppo.gamma' (first defined at x.yaml:2:3)");
}

TEST(ConfigParseTest, KeysMustBeNames) {
  EXPECT_EQ(error_of([] { ConfigDocument::parse_string("[a, b]: 1\n", "x.yaml"); }),
            "x.yaml:1:1: expected a key name, got a sequence");
}

TEST(ConfigFileTest, ReadsAFileAndLocatesErrorsInIt) {
  const TempFile file("mnrl_config_test_ok.yaml", "seed: 3\nppo:\n  gamma: 0.5\n");
  const auto doc = ConfigDocument::parse_file(file.path());
  EXPECT_EQ(doc.source_name(), file.path());
  TestOptions options;
  doc.read_into(options);
  EXPECT_EQ(options.seed, 3);
  EXPECT_EQ(options.ppo.gamma, 0.5);

  const TempFile bad("mnrl_config_test_bad.yaml", "ppo:\n  gamma: 2\n");
  EXPECT_EQ(error_of([&] { ConfigDocument::parse_file(bad.path()).read_into(options); }),
            bad.path() + ":2:10: ppo.gamma = 2 is out of range: must be in [0, 1]");

  const TempFile malformed("mnrl_config_test_malformed.yaml", "seed: 1\nenv: [a\n");
  EXPECT_EQ(error_of([&] { ConfigDocument::parse_file(malformed.path()); }),
            malformed.path() + ":3:1: malformed YAML: end of sequence flow not found");
}

TEST(ConfigFileTest, EmptyFileIsAllDefaults) {
  const TempFile file("mnrl_config_test_empty.yaml", "");
  TestOptions options;
  ConfigDocument::parse_file(file.path()).read_into(options);
  EXPECT_EQ(options, TestOptions{});
}

TEST(ConfigFileTest, UnreadableFileSaysWhy) {
  const std::string missing = testing::TempDir() + "mnrl_no_such_config.yaml";
  EXPECT_EQ(error_of([&] { ConfigDocument::parse_file(missing); }),
            "cannot read config file '" + missing + "': No such file or directory");
  EXPECT_EQ(error_of([] { ConfigDocument::parse_file("."); }),
            "config file '.' is a directory, not a regular file");
}

// Inputs without bounds: each would hang validation or read without end before this check.
TEST(ConfigBoundsTest, AliasExpansionIsBounded) {
  // "Billion laughs": nine levels of ten aliases each expand to 10^9 values.
  std::string yaml = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 10; ++level) {
    const std::string previous = "*l" + std::to_string(level - 1);
    yaml += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int k = 0; k < 10; ++k) yaml += (k ? ", " : "") + previous;
    yaml += "]\n";
  }
  EXPECT_LT(yaml.size(), 1024u);
  const std::string message = error_of([&] { ConfigDocument::parse_string(yaml, "bomb.yaml"); });
  EXPECT_NE(message.find("bomb.yaml:"), std::string::npos) << message;
  EXPECT_NE(message.find("expands to more than 100000 values (through YAML aliases?)"),
            std::string::npos)
      << message;
  // A few aliases are fine.
  EXPECT_NO_THROW(ConfigDocument::parse_string("a: &a [1, 2]\nb: *a\n", "ok.yaml"));
}

// An alias inside its own anchor is a value that contains itself: walking it never ends
// (it overflowed the stack, exit 139). Refused naming the value and where its anchor is.
TEST(ConfigBoundsTest, AValueThatContainsItselfIsRefused) {
  EXPECT_EQ(error_of([] { ConfigDocument::parse_string("x: &a [*a]", "cycle.yaml"); }),
            "cycle.yaml:1:4: the value of 'x' contains itself through a YAML alias (an alias "
            "inside its own anchor)");
  EXPECT_EQ(error_of([] {
              ConfigDocument::parse_string("seed: 1\nenv:\n  kwargs: &k {size: 3, self: *k}\n",
                                           "kwargs.yaml");
            }),
            "kwargs.yaml:3:11: the value of 'env.kwargs' contains itself through a YAML alias "
            "(an alias inside its own anchor)");
  EXPECT_EQ(set_error("seed: 1\n", "env.kwargs=&a [1, *a]"),
            "--set env.kwargs=&a [1, *a]: the value of 'env.kwargs' contains itself through a "
            "YAML alias (an alias inside its own anchor)");
  // Nesting deeper than any parse through aliases, but finite: bounded too. Each line nests
  // 400 levels (the parser allows 500) around the one before.
  const auto nested = [](const std::string& inside) {
    return std::string(400, '[') + inside + std::string(400, ']');
  };
  std::string chain = "a0: &a0 " + nested("x") + "\n";
  for (int i = 1; i <= 5; ++i) {
    chain += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " " +
             nested("*a" + std::to_string(i - 1)) + "\n";
  }
  const std::string message = error_of([&] { ConfigDocument::parse_string(chain, "chain.yaml"); });
  EXPECT_NE(message.find("chain.yaml:"), std::string::npos) << message;
  EXPECT_NE(message.find("nests deeper than 2000 levels (through YAML aliases?)"),
            std::string::npos)
      << message;
}

TEST(ConfigBoundsTest, OnlyRegularFilesOfAtMostAMegabyte) {
  EXPECT_EQ(error_of([] { ConfigDocument::parse_file("/dev/zero"); }),
            "config file '/dev/zero' is a character device, not a regular file");
  const std::string fifo = testing::TempDir() + "mnrl_config_fifo.yaml";
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Would block forever in open() if it were waited on.
  EXPECT_EQ(error_of([&] { ConfigDocument::parse_file(fifo); }),
            "config file '" + fifo + "' is a FIFO, not a regular file");
  std::remove(fifo.c_str());
  const TempFile large("mnrl_large_config.yaml", "# " + std::string(1 << 20, 'x') + "\n");
  EXPECT_EQ(error_of([&] { ConfigDocument::parse_file(large.path()); }),
            "config file '" + large.path() + "' is larger than the 1048576 bytes allowed");
}

TEST(ConfigBoundsTest, ControlCharactersAndDeepNestingSayWhatIsWrong) {
  EXPECT_EQ(error_of([] { ConfigDocument::parse_string(std::string("seed: 1\nalgo: p\0o\n", 19),
                                                       "nul.yaml"); }),
            "nul.yaml:2:8: control character 0x00 is not allowed in YAML (is this a text file?)");
  const std::string deep = "a: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  const std::string message = error_of([&] { ConfigDocument::parse_string(deep, "deep.yaml"); });
  EXPECT_NE(message.find("deep.yaml:1:"), std::string::npos) << message;
  EXPECT_NE(message.find("malformed YAML: nested deeper than"), std::string::npos) << message;
}

TEST(ConfigSetTest, OverridesValuesFromTheFile) {
  const auto options = read("ppo:\n  gamma: 0.9\n  n_steps: 8\n",
                            {"ppo.gamma=0.5", "seed=12", "ppo.learning_rate=1e-3"});
  EXPECT_EQ(options.ppo.gamma, 0.5);
  EXPECT_EQ(options.ppo.n_steps, 8);
  EXPECT_EQ(options.seed, 12);
  EXPECT_EQ(options.ppo.learning_rate, 1e-3);
}

TEST(ConfigSetTest, LastSetWins) {
  EXPECT_EQ(read("", {"ppo.gamma=0.5", "ppo.gamma=0.7"}).ppo.gamma, 0.7);
}

TEST(ConfigSetTest, ParsesValuesAsYaml) {
  const auto options = read("", {"network.hidden_sizes=[32,32]", "ppo.target_kl=null",
                                 "run_name=a=b", "ppo.normalize_advantages=off"});
  EXPECT_EQ(options.network.hidden_sizes, (std::vector<std::int64_t>{32, 32}));
  EXPECT_EQ(options.ppo.target_kl, std::nullopt);
  EXPECT_EQ(options.run_name, "a=b");  // split at the first '='
  EXPECT_FALSE(options.ppo.normalize_advantages);
  EXPECT_EQ(read("", {"network={activation: relu, init: {gain: 2}}"}).network.init.gain, 2.0);
}

TEST(ConfigSetTest, CreatesMissingSections) {
  EXPECT_EQ(read("", {"network.init.gain=3"}).network.init.gain, 3.0);
  EXPECT_EQ(read("network:\n", {"network.init.gain=3"}).network.init.gain, 3.0);
  EXPECT_EQ(read("network:\n  activation: relu\n", {"network.init.gain=3"}).network.activation,
            "relu");
}

TEST(ConfigSetTest, ErrorsNameTheSetInsteadOfTheFile) {
  EXPECT_EQ(read_error("ppo:\n  gamma: 0.9\n", {"ppo.gama=0.9"}),
            "--set ppo.gama=0.9: unknown key 'ppo.gama' (did you mean 'gamma'?)");
  EXPECT_EQ(read_error("", {"ppoo.gamma=0.9"}),
            "--set ppoo.gamma=0.9: unknown key 'ppoo' (did you mean 'ppo'?)");
  EXPECT_EQ(read_error("ppo:\n  gamma: 0.9\n", {"ppo.gamma=abc"}),
            "--set ppo.gamma=abc: ppo.gamma: expected a number, got 'abc'");
  EXPECT_EQ(read_error("", {"network.hidden_sizes=[8,0]"}),
            "--set network.hidden_sizes=[8,0]: network.hidden_sizes[1] = 0 is out of range: must "
            "be >= 1");
  EXPECT_EQ(read_error("", {"network={init: {gian: 1}}"}),
            "--set network={init: {gian: 1}}: unknown key 'network.init.gian' (did you mean "
            "'gain'?)");
}

TEST(ConfigSetTest, LaterSetReplacesEarlierAttribution) {
  // The section set by the first --set is replaced; errors now point at the second.
  EXPECT_EQ(read_error("", {"network.init.gain=1", "network={init: {gian: 1}}"}),
            "--set network={init: {gian: 1}}: unknown key 'network.init.gian' (did you mean "
            "'gain'?)");
  // A file value replaced by --set is reported at the --set; the rest stays at the file.
  EXPECT_EQ(read_error("ppo:\n  gamma: 2\n", {"ppo.gamma=0.5", "ppo.n_steps=0"}),
            "--set ppo.n_steps=0: ppo.n_steps = 0 is out of range: must be >= 1");
  EXPECT_EQ(read_error("ppo:\n  gamma: 2\n", {"ppo.n_steps=4"}),
            "test.yaml:2:10: ppo.gamma = 2 is out of range: must be in [0, 1]");
}

TEST(ConfigSetTest, RejectsMalformedAssignments) {
  for (const std::string bad : {"xyz", "=1", "a..b=1", ".a=1", "a.=1", "1a=2", "a b=1", "a-b=1"}) {
    EXPECT_EQ(set_error("", bad),
              "--set '" + bad + "': expected key.path=value (for example ppo.gamma=0.99)");
  }
  EXPECT_EQ(set_error("", "ppo.gamma="), "--set 'ppo.gamma=': expected a value after '='");
  EXPECT_EQ(set_error("", "ppo.gamma=[1,"),
            "--set 'ppo.gamma=[1,': malformed YAML value: end of sequence flow not found");
  EXPECT_EQ(set_error("", "network={a: 1, a: 2}"),
            "--set network={a: 1, a: 2}: duplicate key 'network.a'");
  // A second YAML document in a value was dropped silently.
  EXPECT_EQ(set_error("", "seed=1\n---\n2"),
            "--set 'seed=1\n---\n2': expected a single YAML value, found 2 documents "
            "(separated by '---')");
}

// Messages name a long value by its start and size instead of echoing it whole (a 900 KB
// scalar filled the terminal).
TEST(ConfigSetTest, LongValuesAreCutInMessages) {
  const std::string huge(900000, '7');
  const std::string cut = std::string(80, '7') + "… (900000 bytes)";
  EXPECT_EQ(read_error("seed: " + huge + "\n"),
            "test.yaml:1:7: seed: expected an integer, got '" + cut + "'");
  const std::string two = "2." + std::string(900000, '0');
  EXPECT_EQ(read_error("ppo: {gamma: " + two + "}\n"),
            "test.yaml:1:14: ppo.gamma = 2." + std::string(78, '0') +
                "… (900002 bytes) is out of range: must be in [0, 1]");
  EXPECT_EQ(read_error("network: {activation: x" + huge + "}\n"),
            "test.yaml:1:23: network.activation = 'x" + std::string(79, '7') +
                "… (900001 bytes)' is not one of: tanh, relu");
  const std::string long_set = "ppo.gamma=" + std::string(200, '9');
  EXPECT_EQ(set_error("", long_set + "\n---\n1"),
            "--set '" + long_set.substr(0, 80) +
                "… (216 bytes)': expected a single YAML value, found 2 documents (separated by "
                "'---')");
}

TEST(ConfigSetTest, CannotSetInsideAScalar) {
  EXPECT_EQ(set_error("seed: 1\nppo: 3\n", "ppo.gamma=0.5"),
            "--set ppo.gamma=0.5: cannot set a key inside 'ppo': it is '3' (at test.yaml:2:6), "
            "not a mapping");
}

TEST(ConfigSetTest, FailedSetLeavesTheDocumentUnchanged) {
  auto doc = ConfigDocument::parse_string("ppo:\n  gamma: 0.9\n", "test.yaml");
  EXPECT_THROW(doc.set("ppo.gamma.x=1"), ConfigError);
  EXPECT_THROW(doc.set("ppo.gamma={a: 1, a: 2}"), ConfigError);
  TestOptions options;
  doc.read_into(options);
  EXPECT_EQ(options.ppo.gamma, 0.9);
}

TEST(ConfigSetTest, CopiesAreIndependent) {
  const auto base = ConfigDocument::parse_string("ppo:\n  gamma: 0.9\n", "test.yaml");
  auto first = base;
  auto second = base;
  first.set("ppo.gamma=0.1");
  second.set("ppo.gama=0.2");
  TestOptions options;
  base.read_into(options);
  EXPECT_EQ(options.ppo.gamma, 0.9);
  first.read_into(options);
  EXPECT_EQ(options.ppo.gamma, 0.1);
  // The copy keeps line numbers and --set attribution.
  EXPECT_EQ(error_of([&] { second.read_into(options); }),
            "--set ppo.gama=0.2: unknown key 'ppo.gama' (did you mean 'gamma'?)");
  // A copy of a copy replays the earlier --set values with their attribution.
  second.set("ppo.gamma=5");
  auto third = second;
  third.set("seed=1");
  EXPECT_STREQ(third.error_at("ppo.gamma", "too big").what(), "--set ppo.gamma=5: too big");
  EXPECT_STREQ(third.error_at("seed", "bad").what(), "--set seed=1: bad");
  EXPECT_STREQ(second.error_at("seed", "bad").what(), "test.yaml: bad");
}

// A learning rate read with its schedule, as every algorithm's section reads it.
struct ScheduledRate {
  double learning_rate = 3e-4;
  std::string lr_schedule = "constant";
  void visit(ConfigVisitor& v) {
    v.learning_rate(learning_rate, lr_schedule, "Adam step size", greater_than(0));
  }
};

ScheduledRate read_rate(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  auto doc = ConfigDocument::parse_string(yaml, "test.yaml");
  for (const auto& assignment : sets) doc.set(assignment);
  ScheduledRate options;
  doc.read_into(options);
  return options;
}

TEST(ConfigLearningRateTest, LinPrefixIsTheLinearSchedule) {
  const ScheduledRate plain = read_rate("learning_rate: 1e-3\n");
  EXPECT_EQ(plain.learning_rate, 1e-3);
  EXPECT_EQ(plain.lr_schedule, "constant");
  const ScheduledRate linear = read_rate("learning_rate: lin_7.3e-4\n");
  EXPECT_EQ(linear.learning_rate, 7.3e-4);
  EXPECT_EQ(linear.lr_schedule, "linear");
  EXPECT_EQ(read_rate("", {"learning_rate=lin_0.001"}).lr_schedule, "linear");
  EXPECT_EQ(read_rate("learning_rate: lin_1e-3\nlr_schedule: linear\n").learning_rate, 1e-3);
  const ScheduledRate spelled_out = read_rate("learning_rate: 2e-4\nlr_schedule: linear\n");
  EXPECT_EQ(spelled_out.learning_rate, 2e-4);
  EXPECT_EQ(spelled_out.lr_schedule, "linear");
  // The resolved config spells it out, and reads back the same.
  EXPECT_EQ(to_yaml([&](ConfigVisitor& v) { ScheduledRate(linear).visit(v); }),
            "learning_rate: 0.00073\nlr_schedule: linear\n");
}

TEST(ConfigLearningRateTest, MalformedLinNamesKeyAndPlace) {
  const std::string expected_form =
      "is malformed: expected a number or lin_<number> (a linear schedule from that number, "
      "like lin_7.3e-4)";
  const auto read_rate_error = [](const std::string& yaml,
                                  const std::vector<std::string>& sets = {}) {
    return error_of([&] { read_rate(yaml, sets); });
  };
  EXPECT_EQ(read_rate_error("seed: 1\nlearning_rate: lin_abc\n"),
            "test.yaml:2:16: learning_rate = 'lin_abc' " + expected_form);
  EXPECT_EQ(read_rate_error("learning_rate: lin_\n"),
            "test.yaml:1:16: learning_rate = 'lin_' " + expected_form);
  // A long value is named by its start and size.
  EXPECT_EQ(read_rate_error("learning_rate: lin_" + std::string(900000, 'x') + "\n"),
            "test.yaml:1:16: learning_rate = 'lin_" + std::string(76, 'x') +
                "… (900004 bytes)' " + expected_form);
  EXPECT_EQ(read_rate_error("", {"learning_rate=lin_1e-3x"}),
            "--set learning_rate=lin_1e-3x: learning_rate = 'lin_1e-3x' " + expected_form);
  // The number after lin_ is checked as any learning rate.
  EXPECT_EQ(read_rate_error("learning_rate: lin_0\n"),
            "test.yaml:1:16: learning_rate = lin_0 is out of range: must be > 0");
  EXPECT_EQ(read_rate_error("learning_rate: lin_.nan\n"),
            "test.yaml:1:16: learning_rate: expected a number (NaN is never allowed), got "
            "'lin_.nan'");
  EXPECT_EQ(read_rate_error("learning_rate: lin_1e38\n"),
            "test.yaml:1:16: learning_rate = lin_1e38 is out of range: a number in a config "
            "must be finite and at most 1e9 in magnitude");
  // lin_ and a constant schedule contradict each other.
  EXPECT_EQ(read_rate_error("learning_rate: lin_1e-3\nlr_schedule: constant\n"),
            "test.yaml:1:16: learning_rate = 'lin_1e-3' asks for the linear schedule but "
            "lr_schedule is 'constant': write a plain number or drop lr_schedule");
  EXPECT_EQ(read_rate_error("lr_schedule: cosine\n"),
            "test.yaml:1:14: lr_schedule = 'cosine' is not one of: constant, linear");
}

TEST(ConfigErrorAtTest, LocatesKeysLikeTheReader) {
  auto doc = ConfigDocument::parse_string("ppo:\n  n_steps: 64\n  gamma: 0.9\n", "test.yaml");
  doc.set("seed=3");
  EXPECT_STREQ(doc.error_at("ppo.n_steps", "ppo.n_steps must be a multiple of 128").what(),
               "test.yaml:2:12: ppo.n_steps must be a multiple of 128");
  EXPECT_STREQ(doc.error_at("seed", "bad seed").what(), "--set seed=3: bad seed");
  EXPECT_STREQ(doc.error_at("ppo.learning_rate", "missing").what(), "test.yaml: missing");
  EXPECT_STREQ(doc.error_at("network.init", "missing").what(), "test.yaml: missing");
}

TEST(ConfigYamlTest, DefaultsInVisitOrder) {
  TestOptions options;
  EXPECT_EQ(to_yaml([&](ConfigVisitor& v) { options.visit(v); }),
            "env: CartPole-v1\n"
            "seed: 0\n"
            "offset: 0.0\n"
            "run_name: \"\"\n"
            "ppo:\n"
            "  n_steps: 2048\n"
            "  n_epochs: 10\n"
            "  gamma: 0.99\n"
            "  learning_rate: 0.0003\n"
            "  target_kl: null\n"
            "  max_grad_norm: 0.5\n"
            "  normalize_advantages: true\n"
            "network:\n"
            "  hidden_sizes: [64, 64]\n"
            "  activation: tanh\n"
            "  init:\n"
            "    gain: 1.0\n");
}

TEST(ConfigYamlTest, RoundTripsExactly) {
  TestOptions options;
  options.env = "a: b # not a comment";
  options.seed = std::numeric_limits<std::int64_t>::min();
  options.offset = -1e9;
  options.ppo.n_steps = std::numeric_limits<std::int64_t>::max();
  options.ppo.n_epochs = 7;
  options.ppo.gamma = 1.0 / 3.0;
  options.ppo.learning_rate = 1e-300;
  options.ppo.target_kl = 0.1 + 0.2;
  options.ppo.max_grad_norm = std::numeric_limits<double>::denorm_min();
  options.ppo.normalize_advantages = false;
  options.network.hidden_sizes = {};
  options.network.activation = "relu";
  options.network.init.gain = 1e9;
  for (const std::string name : {"true", "1e-3", "null", "~", "", "yes", "0x10", "it's", "x\ny"}) {
    options.run_name = name;
    const std::string yaml = to_yaml([&](ConfigVisitor& v) { options.visit(v); });
    SCOPED_TRACE(yaml);
    const auto back = read(yaml);
    EXPECT_EQ(back, options);
    EXPECT_EQ(to_yaml([&](ConfigVisitor& v) { TestOptions(back).visit(v); }), yaml);
  }
}

TEST(ConfigYamlTest, WholeDoublesStayFloats) {
  TestOptions options;
  options.offset = 100000.0;
  const std::string yaml = to_yaml([&](ConfigVisitor& v) { options.visit(v); });
  EXPECT_NE(yaml.find("offset: 100000.0\n"), std::string::npos) << yaml;
}

TEST(ConfigLimitsTest, AllowsAndDescribes) {
  EXPECT_TRUE(between(0, 1).allows(0.0));
  EXPECT_TRUE(between(0, 1).allows(1.0));
  EXPECT_FALSE(between(0, 1).allows(1.0000001));
  EXPECT_FALSE(between(0, 1).allows(std::nan("")));
  EXPECT_FALSE(greater_than(0).allows(0.0));
  EXPECT_TRUE(greater_than(0).allows(1e-300));
  EXPECT_TRUE(at_least(0).allows(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(Limits{}.allows(std::nan("")));
  EXPECT_TRUE(Limits{}.allows(-std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(one_of({"a", "b"}).allows(std::string("b")));
  EXPECT_FALSE(one_of({"a", "b"}).allows(std::string("c")));
  EXPECT_TRUE(Limits{}.allows(std::string("anything")));

  EXPECT_EQ(between(0, 1).describe(), "in [0, 1]");
  EXPECT_EQ(at_least(1).describe(), ">= 1");
  EXPECT_EQ(greater_than(0.5).describe(), "> 0.5");
  EXPECT_EQ(one_of({"constant", "linear"}).describe(), "one of: constant, linear");
  EXPECT_EQ(Limits{}.describe(), "any number");
  Limits half_open = between(0, 1);
  half_open.min_exclusive = true;
  half_open.max_exclusive = true;
  EXPECT_EQ(half_open.describe(), "in (0, 1)");
  Limits upper;
  upper.max = 1e-3;
  upper.max_exclusive = true;
  EXPECT_EQ(upper.describe(), "< 0.001");
}

}  // namespace
}  // namespace mnrl::core
