#pragma once

#include <cstdlib>
#include <memory>

#include "distributed/communicator.h"

namespace mnrl::distributed {

// One communicator for the whole test program (MPI is initialized once per process): MPI under
// mpirun, local otherwise; MNRL_TEST_BACKEND overrides.
inline Communicator& test_communicator() {
  static const std::unique_ptr<Communicator> instance = make_communicator(
      std::getenv("MNRL_TEST_BACKEND") ? std::getenv("MNRL_TEST_BACKEND") : "auto");
  return *instance;
}

}  // namespace mnrl::distributed
