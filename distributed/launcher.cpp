#include "distributed/launcher.h"

#include <cstdlib>

namespace mnrl::distributed {

bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(variable) != nullptr) return true;
  }
  return false;
}

namespace {

// The value of an environment variable that holds a whole number in [1, 2^20], else 0.
int count_from_environment(const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return 0;
  char* end = nullptr;
  const long count = std::strtol(value, &end, 10);
  return end != value && *end == '\0' && count >= 1 && count <= 1 << 20 ? static_cast<int>(count)
                                                                         : 0;
}

// srun's tasks on this node: SLURM_STEP_TASKS_PER_NODE lists the step's nodes in order, a
// count or a count repeated ("2(x3),1": 2 on nodes 0 to 2, 1 on node 3), and SLURM_NODEID is
// this node's place among them. 0 outside an srun step or for a list it cannot read.
int slurm_tasks_on_this_node() {
  const char* list = std::getenv("SLURM_STEP_TASKS_PER_NODE");
  const char* node_id = std::getenv("SLURM_NODEID");
  if (list == nullptr || node_id == nullptr) return 0;
  char* end = nullptr;
  long remaining = std::strtol(node_id, &end, 10);  // nodes before this one
  if (end == node_id || *end != '\0' || remaining < 0) return 0;
  for (const char* p = list; *p != '\0';) {
    const long tasks = std::strtol(p, &end, 10);
    if (end == p || tasks < 1 || tasks > 1 << 20) return 0;
    long repeat = 1;
    p = end;
    if (*p == '(') {
      if (p[1] != 'x') return 0;
      repeat = std::strtol(p + 2, &end, 10);
      if (end == p + 2 || *end != ')' || repeat < 1) return 0;
      p = end + 1;
    }
    if (remaining < repeat) return static_cast<int>(tasks);
    remaining -= repeat;
    if (*p == ',') {
      ++p;
    } else if (*p != '\0') {
      return 0;
    }
  }
  return 0;
}

}  // namespace

int ranks_on_this_host() {
  // mpirun's (Open MPI, MPICH), then srun's: its step's layout, else --ntasks-per-node.
  for (const char* variable : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) {
    if (const int ranks = count_from_environment(variable)) return ranks;
  }
  if (const int ranks = slurm_tasks_on_this_node()) return ranks;
  if (const int ranks = count_from_environment("SLURM_NTASKS_PER_NODE")) return ranks;
  return 1;
}

int ranks_in_this_job() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    if (const int ranks = count_from_environment(variable)) return ranks;
  }
  return 1;
}

int srun_step_tasks() { return count_from_environment("SLURM_STEP_NUM_TASKS"); }

}  // namespace mnrl::distributed
