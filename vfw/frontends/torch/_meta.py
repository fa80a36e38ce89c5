"""Meta tensors: ``device="meta"`` (or ``with torch.device("meta"):``) makes tensors with a shape and a dtype only.

Users build a model on the meta device to count its parameters or check its shapes without initialising it, then
``to_empty(device="cpu")`` and initialise or load it.  As torch: a meta tensor prints as
``tensor(..., device='meta', size=(2, 3))``, its values cannot be read (``item``, ``tolist``, ``numpy``, ``cpu``
raise), ops on it give meta tensors, mixing it with a CPU tensor (other than a 0-d one) raises, and factories and
in-place random fills on it draw nothing from the random generators (so later draws match torch's).

vfw keeps a zero array of the right shape behind a meta tensor (the ops then infer shapes by running), and marks
the tensor in its ``__dict__`` (the class attribute ``Tensor._meta`` is False), as inference tensors are marked.
While meta tensors are alive a marker sits in the graph tracer's list of active traces, which sends every op
through ``_dispatch.call`` (the fast paths step aside), where :func:`follow` marks the results.  The mark is a
token object shared by the tensors made from one meta tensor (views, results, a Parameter copying the ``__dict__``
of the tensor it wraps): the marker leaves when the last token is freed.
"""

import threading
import weakref

from vfw.core.graph.trace import _active as _slow_paths
from vfw.frontends.torch import _device

META = _device.device("meta")

NO_DATA = "Cannot copy out of meta tensor; no data!"
NO_ITEM = "Tensor.item() cannot be called on meta tensors"
NO_NUMPY = ("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory "
            "first.")


class _Defaults(threading.local):
    """The devices entered with ``with torch.device(...):`` in this thread (innermost last)."""

    def __init__(self):
        self.entered = []


_defaults = _Defaults()
_set_default = [None]  # torch.set_default_device's device (None: the CPU)


def enter(dev):
    """``with torch.device(dev):``: factories without a ``device=`` use ``dev``."""
    _defaults.entered.append(dev)


def leave():
    _defaults.entered.pop()


def default_device():
    """The device factories use when given none (``torch.get_default_device()``)."""
    if _defaults.entered:
        return _defaults.entered[-1]
    return _set_default[0] or _device.CPU


def set_default(dev):
    _set_default[0] = None if dev is None else _device.device(dev)


def wanted(device):
    """Whether a factory given ``device`` (None: the default device) makes a meta tensor."""
    if device is None:
        if not _defaults.entered and _set_default[0] is None:  # (the usual case: no lookup)
            return False
        device = default_device()
    if isinstance(device, str):
        return device == "meta" or device.startswith("meta:")
    return isinstance(device, _device.device) and device.type == "meta"


class _MetaAlive:
    """The marker in the tracer's active list while meta tensors exist (not a trace: only the fast paths see it)."""

    __slots__ = ()


_MARKER = _MetaAlive()
_alive = [0]
_lock = threading.Lock()


class _Token:
    """A meta tensor's mark (truthy); the marker stays in the tracer's list while one is alive."""

    __slots__ = ("__weakref__",)

    def __deepcopy__(self, memo):  # a deep copy of a meta tensor holds the same mark (counted once)
        return self


def _released():
    with _lock:
        _alive[0] -= 1
        if not _alive[0]:
            _slow_paths.remove(_MARKER)


def mark(t, token=None):
    """Make the torch tensor ``t`` a meta tensor (sharing ``token``, another meta tensor's mark); returns it."""
    if t._meta:
        return t
    if token is None:
        token = _Token()
        with _lock:
            if not _alive[0]:
                _slow_paths.append(_MARKER)
            _alive[0] += 1
        weakref.finalize(token, _released)
    t._meta = token
    return t


def unmark(t):
    """Make ``t`` an ordinary CPU tensor again (``to_empty(device='cpu')`` gave it new memory)."""
    if t._meta:
        del t.__dict__["_meta"]


def share(root, alias):
    """Give ``alias`` (a view or detached alias of ``root``'s memory) ``root``'s meta mark."""
    if root._meta:
        mark(alias, root._meta)


def follow(inputs, result):
    """Mark the outputs ``result`` (a tensor or tuple) of an op on ``inputs`` as meta when an input is; refuse
    tensors on both devices as torch does (a 0-d CPU tensor mixes with meta ones as a scalar)."""
    expected = token = None
    for x in inputs:
        if hasattr(x, "_meta") and (x._meta or x.array.ndim):
            on_meta = bool(x._meta)
            token = token or x._meta
            if expected is None:
                expected = on_meta
            elif on_meta is not expected:
                found, wanted_type = ("meta", "cpu") if on_meta else ("cpu", "meta")
                raise RuntimeError(f"Tensor on device {found} is not on the expected device {wanted_type}!")
    if not token:
        return
    for t in result if type(result) is tuple else (result,):
        if t is not None:
            mark(t, token)


NO_DATA_MODULE = NO_DATA + (" Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving "
                            "module from meta to a different device.")


def carry(dst, src):
    """Give ``dst`` (a parameter whose values were replaced by ``src``'s) ``src``'s meta mark."""
    if src._meta:
        mark(dst, src._meta)
    else:
        unmark(dst)


def moved(module, device, refusal):
    """Whether ``Module.to(device)`` moves ``module``'s tensors onto the meta device; raises ``refusal``
    (NotImplementedError) for a move of meta tensors elsewhere, which has no values to copy."""
    if wanted(device):
        return True
    if any(t._meta for t in (*module.parameters(), *module.buffers())):
        raise NotImplementedError(refusal)
    return False
