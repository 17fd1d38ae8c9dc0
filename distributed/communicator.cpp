#include "distributed/communicator.h"

#include <ATen/ops/full.h>

#include <algorithm>
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
    if (const int tasks = srun_step_tasks(); tasks > 1) {
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
