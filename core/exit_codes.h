#pragma once

namespace mnrl::core {

// Exit codes of the mnrl program (and of a job that the library ends on every rank).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // something went wrong while running
constexpr int kExitUsage = 2;    // bad command line, config or input: nothing was run or written

}  // namespace mnrl::core
