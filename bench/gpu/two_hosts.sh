#!/usr/bin/env bash
# two_hosts.sh COMMAND...: COMMAND as a job of two MPI ranks, each in a UTS namespace with a
# host name of its own (root needed), so that NCCL takes one GPU's two ranks for two hosts.
exec mpirun --oversubscribe -np 2 bash -c \
  'exec unshare --uts bash -c "hostname rank$OMPI_COMM_WORLD_RANK; exec \"\$@\"" _ "$@"' _ "$@"
