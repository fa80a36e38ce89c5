"""Prints, as JSON, torchrun's variables, ``is_torchelastic_launched()`` and ``TF_CONFIG`` in this process
(test_launcher.py)."""

import json
import os

import vfw.torch.distributed as dist

NAMES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE", "ROLE_RANK",
         "ROLE_WORLD_SIZE", "ROLE_NAME", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT",
         "TORCHELASTIC_MAX_RESTARTS", "OMP_NUM_THREADS", "MASTER_ADDR", "MASTER_PORT", "TF_CONFIG")

print(json.dumps({"launched": dist.is_torchelastic_launched(), **{n: os.environ.get(n) for n in NAMES}}), flush=True)
