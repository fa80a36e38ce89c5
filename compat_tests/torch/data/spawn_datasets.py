"""A dataset importable without real torch, for DataLoader workers started with 'spawn' (they import this module)."""

import random

import numpy as np
import vfw.torch as torch
from vfw.torch.utils import data


class SeedProbe(data.Dataset):
    """Each sample reports the worker's random streams (torch, numpy, random) and its WorkerInfo."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = data.get_worker_info()
        return {"i": i, "torch": torch.rand(2), "numpy": np.random.rand(2), "random": random.random(),
                "id": info.id, "seed": info.seed}
