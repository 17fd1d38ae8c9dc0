// Loads a policy written by `mnrl export` and prints the action it takes for one observation
// given on the command line: `act policy.pt 0.01 0.02 0.03 0.04`. Needs LibTorch only.
#include <iostream>
#include <string>
#include <vector>

#include <torch/script.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: act POLICY.pt OBSERVATION_VALUE...\n";
    return 2;
  }
  torch::jit::Module policy = torch::jit::load(argv[1]);
  std::vector<float> observation;
  for (int i = 2; i < argc; ++i) observation.push_back(std::stof(argv[i]));

  torch::NoGradGuard no_gradients;
  // A batch of one observation as the env gives it: normalization is inside the module.
  const at::Tensor batch = torch::tensor(observation).unsqueeze(0);
  const at::Tensor action = policy.forward({batch}).toTensor()[0];
  if (action.dim() == 0) {
    std::cout << "action: " << action.item<std::int64_t>() << "\n";  // Discrete: an index
  } else {
    std::cout << "action:";
    for (std::int64_t j = 0; j < action.size(0); ++j) std::cout << " " << action[j].item<float>();
    std::cout << "\n";  // Box: values within the action space's bounds
  }
  return 0;
}
