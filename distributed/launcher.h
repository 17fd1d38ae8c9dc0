#pragma once

// What the launcher (mpirun, mpiexec, srun) says about the job, from its environment variables:
// no MPI call, no torch.
namespace mnrl::distributed {

// The ranks of the job as its launcher says (Open MPI's, MPICH's or PMIx's size, srun's
// tasks); 1 outside a launcher or where it does not say.
int ranks_in_this_job();

// Whether this process was started by mpirun/mpiexec/srun (from their environment variables).
bool launched_by_mpi();

// How many ranks of the job run on this host, as the launcher says (Open MPI's local size,
// MPICH's MPI_LOCALNRANKS, Slurm's tasks on this node); 1 outside a launcher or where it does
// not say.
int ranks_on_this_host();

// The tasks of this srun step (SLURM_STEP_NUM_TASKS), whether or not they can meet over MPI; 0
// outside srun.
int srun_step_tasks();

}  // namespace mnrl::distributed
