#include "distributed/communicator.h"

#include <ATen/ops/full.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/host_name.h"
#include "distributed/backend_registry.h"

namespace mnrl::distributed {

std::unique_ptr<Communicator> Communicator::split(int) {
  throw CommunicatorError("the " + backend() + " backend has no sub-communicators: use mpi");
}

void Communicator::send(const at::Tensor&, int destination, int) {
  throw CommunicatorError("send to rank " + std::to_string(destination) +
                          ": a job of one process has no other rank (start it with mpirun)");
}

int Communicator::receive(at::Tensor&, int source, int) {
  throw CommunicatorError("receive from rank " + std::to_string(source) +
                          ": a job of one process has no other rank (start it with mpirun)");
}

void Communicator::start_send(at::Tensor tensor, int destination, int tag) {
  send(tensor, destination, tag);
}

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

namespace {

// `backend` by name, or the one "auto" picks for `gpu_gradients` on ranks that span hosts
// or not.
const Backend& chosen_backend(const std::string& backend, bool gpu_gradients, bool spans_hosts) {
  const BackendRegistry& backends = BackendRegistry::global();
  return backends.at(backend == "auto"
                         ? backends.auto_choice({launched_by_mpi(), gpu_gradients, spans_hosts})
                         : backend);
}

}  // namespace

std::unique_ptr<Communicator> make_communicator(const std::string& backend, bool gpu_gradients) {
  // srun without an MPI plugin (Slurm's MpiDefault is none) starts N tasks that cannot meet:
  // each would train alone, all into the same run directory.
  if (!launched_by_mpi()) {
    if (const int tasks = count_from_environment("SLURM_STEP_NUM_TASKS"); tasks > 1) {
      throw CommunicatorError("srun started " + std::to_string(tasks) +
                              " tasks without PMIx, so each would train alone: start the job "
                              "with srun --mpi=pmix (or MpiDefault=pmix in slurm.conf)");
    }
  }
  // From the launcher's counts: a job whose ranks here are fewer than all of them (also where the
  // launcher does not say how many run here) spans hosts.
  return chosen_backend(backend, gpu_gradients, ranks_on_this_host() < ranks_in_this_job()).make();
}

std::unique_ptr<Communicator> make_group_communicator(const std::string& backend,
                                                      bool gpu_gradients,
                                                      std::unique_ptr<Communicator> group) {
  // From the group's own host names (a collective of the group alone: the rest of the job's
  // ranks are not in it).
  const at::Tensor hosts =
      group->all_gather(at::full({1}, core::host_name_hash(), at::kLong)).contiguous();
  const std::int64_t* hash = hosts.data_ptr<std::int64_t>();
  const bool spans_hosts =
      std::any_of(hash, hash + hosts.numel(), [&](std::int64_t other) { return other != hash[0]; });
  return chosen_backend(backend, gpu_gradients, spans_hosts).over(std::move(group));
}

}  // namespace mnrl::distributed
