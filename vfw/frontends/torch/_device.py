"""torch.device and the accelerator stubs (vfw computes on the CPU only)."""


class device:  # noqa: N801  (torch's name)
    """Where a tensor lives: ``torch.device('cpu')``; other device types parse but cannot hold tensors.

    Parameters
    ----------
    type : str or device
        ``'cpu'``, ``'cuda'``, ``'cuda:1'``, ``'mps'``, ``'meta'``...
    index : int, optional
    """

    __slots__ = ("type", "index")
    _TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
              "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")  # (torch's order, as its error lists)

    def __init__(self, type, index=None):  # noqa: A002  (torch's argument name)
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type!r})")
        else:
            if ":" in type:
                type, _, idx = type.partition(":")
                if index is not None or not idx.isdigit():
                    raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
                index = int(idx)
            if type not in self._TYPES:
                raise RuntimeError(f"Expected one of {', '.join(self._TYPES)} device type at start of device "
                                   f"string: {type}")
        self.type = type
        self.index = index

    def __repr__(self):
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):  # torch compares devices only with devices: device("cpu") != "cpu"
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        # ``with torch.device("meta"):``: factories given no device use this one (only meta changes anything in
        # vfw, whose tensors otherwise live on the CPU)
        from vfw.frontends.torch import _meta
        _meta.enter(self)
        return self

    def __exit__(self, *exc):
        from vfw.frontends.torch import _meta
        _meta.leave()
        return False


CPU = device("cpu")


def check(dev, what="tensor"):
    """Return the CPU device for ``dev`` (None, 'cpu', ...) or raise torch's error for an absent backend."""
    if dev is None:
        return CPU
    d = dev if isinstance(dev, device) else device(dev)
    if d.type in ("cpu", "meta"):
        return CPU
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise RuntimeError(f"{d.type.upper()} backend is not available in vfw (tensors live on the CPU)")
