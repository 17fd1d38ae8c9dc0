"""Plays a policy written by `mnrl export` with Debian's python3-torch on observations saved by
policy_export_test.cpp and prints how far its actions are from the agent's.

Usage: policy_export_check.py MODULE OBSERVATIONS OBSERVATION_SIZE ACTIONS KIND BATCH STARTS
OBSERVATIONS are float32 rows; KIND is "discrete" (ACTIONS int64) or "box" (ACTIONS float32,
one row per observation); the module plays BATCH rows at a time, as the agent did. STARTS holds
a byte per row, 1 where an episode starts: a recurrent module's memory is zeroed there.
"""
import sys

import torch


def read(path, dtype):
    with open(path, "rb") as f:
        return torch.frombuffer(bytearray(f.read()), dtype=dtype)


module_path, observations_path, observation_size, actions_path, kind, batch, starts_path = \
    sys.argv[1:8]
module = torch.jit.load(module_path)
batch = int(batch)
observations = read(observations_path, torch.float32).view(-1, int(observation_size))
starts = read(starts_path, torch.uint8).bool().view(-1, 1)
recurrent = hasattr(module, "initial_state")
with torch.no_grad():
    if recurrent:
        state = module.initial_state(batch)
        played = []
        for rows, restart in zip(torch.split(observations, batch), torch.split(starts, batch)):
            action, state = module(rows, state.masked_fill(restart, 0.0))
            played.append(action)
        actions = torch.cat(played)
    else:
        actions = torch.cat([module(rows) for rows in torch.split(observations, batch)])
if kind == "discrete":
    expected = read(actions_path, torch.int64)
    print("rows %d differing %d largest 0" % (len(expected), int((actions != expected).sum())))
else:
    expected = read(actions_path, torch.float32).view(actions.shape)
    largest = float((actions - expected).abs().max())
    print("rows %d differing 0 largest %g" % (len(expected), largest))
