// Lists of sections in configs: ConfigVisitor::list.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/config.h"

namespace mnrl::core {
namespace {

// A list item whose keys depend on its type, like an env wrapper.
struct Layer {
  std::string type;
  int size = 8;          // dense only
  double rate = 0.5;     // dropout only
  void visit(ConfigVisitor& v) {
    v.field("type", type, "layer type", one_of({"dense", "dropout", "flatten"}));
    if (type == "dense") v.field("size", size, "units", at_least(1));
    if (type == "dropout") v.field("rate", rate, "drop probability", between(0, 1));
  }
};

struct Model {
  std::string name = "m";
  std::vector<Layer> layers{Layer{"flatten"}};
  void visit(ConfigVisitor& v) {
    v.field("name", name, "model name");
    v.list("layers", layers, "layers in order", "type");
  }
};

Model read(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  auto doc = ConfigDocument::parse_string(yaml, "test.yaml");
  for (const auto& assignment : sets) doc.set(assignment);
  Model model;
  doc.read_into(model);
  return model;
}

std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    read(yaml, sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ConfigListTest, ReadsMappingsAndBareNames) {
  const Model model = read(
      "layers:\n"
      "  - {type: dense, size: 32}\n"
      "  - dropout\n"
      "  - type: dense\n");
  ASSERT_EQ(model.layers.size(), 3u);
  EXPECT_EQ(model.layers[0].type, "dense");
  EXPECT_EQ(model.layers[0].size, 32);
  EXPECT_EQ(model.layers[1].type, "dropout");
  EXPECT_EQ(model.layers[1].rate, 0.5);
  EXPECT_EQ(model.layers[2].size, 8);  // a default
}

TEST(ConfigListTest, AbsentKeepsDefaultsNullAndEmptyClear) {
  ASSERT_EQ(read("name: x\n").layers.size(), 1u);
  EXPECT_EQ(read("name: x\n").layers[0].type, "flatten");
  EXPECT_TRUE(read("layers:\n").layers.empty());
  EXPECT_TRUE(read("layers: []\n").layers.empty());
}

TEST(ConfigListTest, ErrorsNameTheItemAndWhereItIs) {
  const std::string unknown = error_of("layers:\n  - {type: dense, rate: 0.1}\n");
  EXPECT_NE(unknown.find("test.yaml:2:"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("unknown key 'layers[0].rate'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("keys in 'layers[0]' are: type, size"), std::string::npos) << unknown;

  const std::string bare = error_of("name: x\nlayers:\n  - dense\n  - dropuot\n");
  EXPECT_NE(bare.find("test.yaml:4:5: layers[1].type = 'dropuot' is not one of"),
            std::string::npos)
      << bare;
  EXPECT_NE(bare.find("did you mean 'dropout'"), std::string::npos) << bare;

  const std::string range = error_of("layers:\n  - {type: dense, size: 0}\n");
  EXPECT_NE(range.find("layers[0].size = 0 is out of range"), std::string::npos) << range;
}

TEST(ConfigListTest, RejectsWhatIsNotAListOfItems) {
  const std::string scalar = error_of("layers: dense\n");
  EXPECT_NE(scalar.find("test.yaml:1:9: layers: expected a sequence"), std::string::npos)
      << scalar;
  const std::string nested = error_of("layers:\n  - [dense]\n");
  EXPECT_NE(nested.find("layers[0]: expected a mapping of keys or a name (type)"),
            std::string::npos)
      << nested;
}

TEST(ConfigListTest, SetReplacesTheWholeList) {
  const Model model = read("layers: [dense, dense]\n", {"layers=[dropout, {type: dense, size: 3}]"});
  ASSERT_EQ(model.layers.size(), 2u);
  EXPECT_EQ(model.layers[0].type, "dropout");
  EXPECT_EQ(model.layers[1].size, 3);
  const std::string error = error_of("", {"layers=[{type: dense, size: -1}]"});
  EXPECT_NE(error.find("--set layers=[{type: dense, size: -1}]: layers[0].size = -1"),
            std::string::npos)
      << error;
}

TEST(ConfigListTest, WritesListsThatReadBack) {
  Model model;
  model.layers = {Layer{"dense", 16, 0.5}, Layer{"dropout", 8, 0.25}};
  const std::string yaml = to_yaml([&](ConfigVisitor& v) { model.visit(v); });
  EXPECT_EQ(yaml,
            "name: m\n"
            "layers:\n"
            "  - type: dense\n"
            "    size: 16\n"
            "  - type: dropout\n"
            "    rate: 0.25\n");
  const Model back = read(yaml);
  ASSERT_EQ(back.layers.size(), 2u);
  EXPECT_EQ(back.layers[0].size, 16);
  EXPECT_EQ(back.layers[1].rate, 0.25);

  model.layers.clear();
  EXPECT_TRUE(read(to_yaml([&](ConfigVisitor& v) { model.visit(v); })).layers.empty());
}

}  // namespace
}  // namespace mnrl::core
