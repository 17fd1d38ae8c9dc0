#pragma once

#include <memory>
#include <string>
#include <vector>

namespace mnrl::distributed {

class Communicator;

// The processes a command was started as, for what a program does around its work: rank and
// size, a vote, and ending every process at once. One process unless started by mpirun/srun
// (and built with MPI). Torch-free, for the program's mains.
class Job {
 public:
  // Throws CommunicatorError when started by mpirun but built without MPI.
  Job();
  ~Job();

  int rank() const;
  int size() const;
  // "" for one process, else " (rank R of N)": for messages.
  std::string rank_label() const;
  // Collective: the ranks on which `condition` holds, in order (the same list on every rank).
  std::vector<int> ranks_where(bool condition);
  // Ends every process of the job with `code` (see Communicator::abort).
  [[noreturn]] void abort(int code);

 private:
  std::unique_ptr<Communicator> world_;
};

}  // namespace mnrl::distributed
