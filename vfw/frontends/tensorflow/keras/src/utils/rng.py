"""``keras.utils.set_random_seed``: one call seeds every generator Keras programs draw from."""

import random as python_random

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src import random
from vfw.frontends.tensorflow.keras.src.backend import global_state

_GLOBAL_RANDOM_SEED = "global_random_seed"


def set_random_seed(seed):
    """Seed Python's ``random``, numpy's global generator and TF's global seed, and forget the global
    SeedGenerator (remade from Python's ``random`` on its next use).

    Parameters
    ----------
    seed : int
    """
    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")
    global_state.set_global_attribute(_GLOBAL_RANDOM_SEED, seed)
    global_state.set_global_attribute(random.GLOBAL_SEED_GENERATOR, None)
    python_random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)


def get_random_seed():
    """The seed given to ``set_random_seed`` in this session, or None."""
    return global_state.get_global_attribute(_GLOBAL_RANDOM_SEED)
