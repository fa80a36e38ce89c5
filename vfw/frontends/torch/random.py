"""torch.random: random number generators and the process-wide seed.

``torch.default_generator`` is the engine's own generator
(``vfw.core.ops.random.default_generator()``): seeding it with
``torch.manual_seed`` also makes engine random ops (Dropout, RandomNormal...)
reproducible. Other ``torch.Generator`` objects own independent numpy
generators. Every generator is a 32-bit Mersenne Twister seeded as torch seeds
its CPU generator, plus torch's cached second normal sample, so the samplers
that follow torch's algorithms (rand, randn, randint, randperm, uniform_,
normal_) give torch's numbers for the same seed. A state is a uint8 tensor in
torch's CPU generator layout, so states move between vfw and torch (checkpoints).

Under a graph trace, what changes a generator's state (seeding, ``set_state``,
making a ``Generator``) and what reads it (``get_state``) are recorded like the
draws (``_traced.replayed``): every run of the graph seeds, restores and reads
the generator where the Python code did, so ``fork_rng`` or a reseed inside
traced code behaves as eagerly.
"""

import contextlib
import os
import struct

import numpy as np

from vfw.core.ops import random as _engine_random
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _device, _dispatch
from vfw.frontends.torch._traced import replayed

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng"]

_MASK64 = (1 << 64) - 1
_DEFAULT_SEED = 67280421310721  # what a new torch.Generator starts from
# torch's CPU generator state, little endian: initial seed, "left" (draws until the next twist, plus one),
# "seeded", "next" (index of the next word), the 624 Mersenne Twister words widened to 64 bits, then the cached
# double normal sample (normal_x, normal_y, normal_rho, normal_is_valid; torch keeps it in normal_y) and the cached
# float normal sample (which no vfw sampler uses: written empty, ignored on restore).
_WORDS = 624
_HEAD = struct.Struct("<QiiQ")
_NORMAL = struct.Struct("<dddi4x")
_FLOAT_NORMAL = struct.Struct("<f?3x")
_STATE_SIZE = _HEAD.size + 8 * _WORDS + _NORMAL.size + _FLOAT_NORMAL.size
_NOTHING = np.zeros(0, np.uint8)  # what a replayed state change returns (a graph op has an output)


class Generator:
    """A random number generator: ``torch.Generator(device='cpu')``.

    Pass it as ``generator=`` to sampling functions to draw from its own stream.

    Parameters
    ----------
    device : str or torch.device, optional
        Only ``'cpu'`` is available.
    """

    __slots__ = ("_rng", "_seed", "_engine", "normal_cache")

    def __init__(self, device="cpu"):
        d = device if isinstance(device, _device.device) else _device.device(device)
        if d.type != "cpu":
            raise RuntimeError(f"vfw.torch has no {d.type.upper()} generator (tensors live on the CPU)")
        self._rng = np.random.Generator(np.random.MT19937())
        self._engine = False
        self._reseed(_DEFAULT_SEED)

    @property
    def device(self):
        """torch.device: the CPU."""
        return _device.CPU

    def manual_seed(self, seed):
        """Reset the generator from ``seed`` (an int; negatives wrap modulo 2**64); returns self."""
        if type(seed) is bool or not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        self._reseed(_seed_value(int(seed)))
        return self

    def seed(self):
        """Reseed from a non-deterministic 64-bit value and return it (a graph run draws a value of its own)."""
        seeded = []
        replayed(lambda: self._set_seed(int.from_bytes(os.urandom(8), "little"), seeded))
        return seeded[-1]

    def initial_seed(self):
        """int: the seed the generator was last seeded with."""
        return self._seed

    def _reseed(self, value):
        replayed(lambda: self._set_seed(value))

    def _set_seed(self, value, seeded=None):
        if self._engine:
            _engine_random.seed(value)  # reseeds the engine generator in place
        else:
            self._rng.bit_generator.state = _engine_random.mt19937_state(value)
        self._seed = value
        self.normal_cache = None  # torch's Box-Muller keeps the second sample of a pair for the next draw
        if seeded is not None:
            seeded[:] = [value]
        return _NOTHING

    def get_state(self):
        """The generator state as a uint8 tensor (for :meth:`set_state`)."""
        return replayed(self._state_bytes)

    def _state_bytes(self):
        st = self._rng.bit_generator.state["state"]
        key, pos = st["key"], int(st["pos"])
        # numpy counts words used since the last twist (pos), torch counts the ones left (left = 625 - pos) and
        # keeps next at 0 until its first twist, at 624 once a block is used up
        next_word = pos if pos < _WORDS or not _freshly_seeded(key, self._seed) else 0
        cached = self.normal_cache
        raw = (_HEAD.pack(self._seed, _WORDS + 1 - pos, 1, next_word) + key.astype("<u8").tobytes()
               + _NORMAL.pack(0.0, 0.0 if cached is None else cached, 0.0, cached is not None)
               + _FLOAT_NORMAL.pack(0.0, False))
        return np.frombuffer(raw, np.uint8).copy()

    def set_state(self, new_state):
        """Restore a state from :meth:`get_state`; returns self."""
        if not isinstance(new_state, CoreTensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.array.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        replayed(self._restore, new_state)
        return self

    def _restore(self, state):
        raw = state.tobytes()
        if len(raw) != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input RNG state "
                               f"size to be {len(raw)}")
        initial, left, seeded, next_word = _HEAD.unpack_from(raw)
        if seeded != 1 or not 1 <= left <= _WORDS or not 0 <= next_word <= _WORDS:
            raise RuntimeError("Invalid mt19937 state")
        key = np.frombuffer(raw, "<u8", _WORDS, _HEAD.size).astype(np.uint32)
        _, cached, _, has_cached = _NORMAL.unpack_from(raw, _HEAD.size + 8 * _WORDS)
        self._rng.bit_generator.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _WORDS + 1 - left}}
        self._seed = initial
        self.normal_cache = cached if has_cached else None
        return _NOTHING

    def clone_state(self):
        """A new generator in this generator's current state."""
        return _restored(self._state_bytes().tobytes())

    def __reduce__(self):
        return (_restored, (self._state_bytes().tobytes(),))

    def __repr__(self):
        return f"<torch.Generator object at {hex(id(self))}>"


def _restored(raw):
    return Generator().set_state(_dispatch.wrap(np.frombuffer(raw, np.uint8).copy()))


def _freshly_seeded(key, seed):
    """Whether ``key`` is still the seeding of ``seed`` (no twist yet): its first two words follow the seeding
    recurrence, which a twisted block breaks."""
    first = seed & 0xFFFFFFFF
    return int(key[0]) == first and int(key[1]) == (1812433253 * (first ^ (first >> 30)) + 1) & 0xFFFFFFFF


def _seed_value(value):
    """A seed reduced to 64 bits as torch does: in [-2**63, 2**64), negatives wrap around."""
    if not -(1 << 63) <= value <= _MASK64:
        raise ValueError("Overflow when unpacking long long")
    return value & _MASK64


def _default():
    g = Generator.__new__(Generator)
    g._rng = _engine_random.default_generator()
    g._engine = True
    # As torch does at start-up, seed with a fresh value (drawn from the engine stream, so a
    # program that seeded the engine before importing vfw.torch stays reproducible).
    g._seed = 0
    g._set_seed(int(g._rng.integers(0, _MASK64, dtype=np.uint64, endpoint=True)))
    return g


default_generator = _default()


def manual_seed(seed):
    """Seed the default generator (and the engine's random ops); returns ``torch.default_generator``.

    Parameters
    ----------
    seed : int
        In ``[-2**63, 2**64)``; anything ``int()`` accepts.
    """
    default_generator._reseed(_seed_value(int(seed)))
    return default_generator


def seed():
    """Seed the default generator from a non-deterministic value and return that 64-bit value."""
    return default_generator.seed()


def initial_seed():
    """int: the seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default generator's state from :func:`get_rng_state`."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Context manager that restores the default generator's state on exit.

    Parameters
    ----------
    devices : iterable of int, optional
        Accelerator devices to fork as well (none exist: a non-empty list is an error).
    enabled : bool
        ``False`` makes the context a no-op.
    """
    if device_type == "meta" or not enabled:
        yield
        return
    if devices is not None and list(devices):
        raise AssertionError("Torch not compiled with CUDA enabled")
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
