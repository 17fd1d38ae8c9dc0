"""Plays a policy written by `mnrl export` with Debian's python3-torch on observations saved by
policy_export_test.cpp and prints how far its actions are from the agent's.

Usage: policy_export_check.py MODULE OBSERVATIONS OBSERVATION_SIZE ACTIONS KIND BATCH
OBSERVATIONS are float32 rows; KIND is "discrete" (ACTIONS int64) or "box" (ACTIONS float32,
one row per observation); the module plays BATCH rows at a time, as the agent did.
"""
import sys

import torch


def read(path, dtype):
    with open(path, "rb") as f:
        return torch.frombuffer(bytearray(f.read()), dtype=dtype)


module_path, observations_path, observation_size, actions_path, kind, batch = sys.argv[1:7]
module = torch.jit.load(module_path)
observations = read(observations_path, torch.float32).view(-1, int(observation_size))
with torch.no_grad():
    actions = torch.cat([module(rows) for rows in torch.split(observations, int(batch))])
if kind == "discrete":
    expected = read(actions_path, torch.int64)
    print("rows %d differing %d largest 0" % (len(expected), int((actions != expected).sum())))
else:
    expected = read(actions_path, torch.float32).view(actions.shape)
    largest = float((actions - expected).abs().max())
    print("rows %d differing 0 largest %g" % (len(expected), largest))
