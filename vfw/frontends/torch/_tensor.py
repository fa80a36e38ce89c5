"""torch.Tensor over the engine tensor: properties, conversions and the autograd API.

Math methods (``x.add``, ``x.sum``, operators...) are bound from the function
modules by ``_methods.py``; this file holds what is specific to the tensor
object itself.
"""

import copy
import functools
import numbers

import numpy as np

from vfw.core import autograd
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import (
    _config,
    _device,
    _dispatch,
    _dtype,
    _export_guard,
    _inference,
    _memory_layout,
    _meta,
    _tensor_to,
    _traced,
)
from vfw.frontends.torch._grad_fn import grad_fn_of
from vfw.frontends.torch._hook_handle import Handle as _Handle
from vfw.frontends.torch._size import Size

_new = object.__new__


class Tensor(CoreTensor):
    """A multi-dimensional array with torch semantics (dtype promotion, views, autograd).

    ``torch.Tensor(data)`` copies ``data`` into a tensor of the default dtype;
    ``torch.Tensor(*sizes)`` gives an uninitialized tensor of that shape.
    Prefer ``torch.tensor`` / ``torch.empty``, as in torch.
    """

    # ``__dict__``: torch tensors take arbitrary attributes (``param.my_flag = True``, ``nn.Buffer``'s mark);
    # it is created only when one is set.
    __slots__ = ("_grad", "_base", "_aliases", "_version_counter", "_hooks", "_retains_grad", "__dict__")

    def __init__(self, *args, device=None):
        _device.check(device)
        if len(args) == 1 and isinstance(args[0], CoreTensor):
            self.array = args[0].array  # torch.Tensor(t) aliases t's memory (keeping its dtype)
        elif len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            self.array = _dispatch.array_from(args[0], _dtype.default_float_np())
        else:
            self.array = np.empty(_dispatch.dims_of(args), _dtype.default_float_np())
        self.requires_grad = False
        self.grad_node = None

    # -- what it is --------------------------------------------------------------------
    @property
    def data(self):
        """Tensor: the same memory, detached from autograd (assigning replaces the values)."""
        out = _dispatch.wrap(self.array)
        _inference.share_mark(self, out)
        _meta.share(self, out)
        return out

    @data.setter
    def data(self, value):
        if not isinstance(value, CoreTensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self.array = value.array

    @property
    def shape(self):
        """torch.Size: the dimensions."""
        return Size(self.array.shape)

    def size(self, dim=None):
        """The shape (``torch.Size``), or the length of dimension ``dim``."""
        if dim is None:
            return Size(self.array.shape)
        return self.array.shape[_dim(dim, self.array.ndim, "size")]

    @property
    def dtype(self):
        """torch.dtype: the element type."""
        return _dtype._FROM_NP[self.array.dtype]

    @property
    def device(self):
        """torch.device: the CPU, or ``meta`` for a meta tensor (shape and dtype only)."""
        return _meta.META if self._meta else _device.CPU

    @property
    def is_meta(self):
        """bool: whether this is a meta tensor (made with ``device="meta"``: it has no values)."""
        return bool(self._meta)

    __array_priority__ = 1000  # numpy defers binary operators to the tensor's (``np.float32(2) * t``)
    is_cuda = False
    _meta = False  # meta tensors set it True in their __dict__ (see _meta.py)
    is_cpu = property(lambda self: not self._meta, doc="bool: whether the tensor lives on the CPU (not meta).")
    is_sparse = False
    is_quantized = False
    is_mps = False
    is_nested = False
    layout = _config.strided
    _inference = False  # inference tensors set it True in their __dict__ (see _inference.py)

    def is_inference(self):
        """bool: whether this is an inference tensor (made inside ``torch.inference_mode()``, or a view of one)."""
        return self._inference

    def is_pinned(self, device=None):
        return False

    def is_same_size(self, other):
        """bool: whether ``other`` has the same shape."""
        return self.array.shape == other.array.shape

    @property
    def ndim(self):
        """int: the number of dimensions."""
        return self.array.ndim

    def dim(self):
        """int: the number of dimensions."""
        return self.array.ndim

    ndimension = dim

    def numel(self):
        """int: the number of elements."""
        return self.array.size

    nelement = numel

    def element_size(self):
        """int: bytes per element."""
        return self.array.itemsize

    @property
    def itemsize(self):
        """int: bytes per element."""
        return self.array.itemsize

    @property
    def nbytes(self):
        """int: bytes of the elements."""
        return self.array.nbytes

    def is_floating_point(self):
        """bool: whether the dtype is a floating point type."""
        return _dtype._FROM_NP[self.array.dtype].is_floating_point

    def is_complex(self):
        """bool: whether the dtype is complex."""
        return self.array.dtype.kind == "c"

    def conj(self):
        """This tensor (real dtypes have no conjugate bit)."""
        return self

    resolve_conj = resolve_neg = conj

    def is_conj(self):
        return False

    is_neg = is_conj

    def is_signed(self):
        return _dtype._FROM_NP[self.array.dtype].is_signed

    def is_contiguous(self, memory_format=None):
        """bool: whether the elements are laid out without gaps in ``memory_format``'s dim order (row-major by
        default)."""
        name = "contiguous_format" if memory_format is None else _memory_format_name(memory_format, "is_contiguous")
        return _memory_layout.is_laid_out_as(self.array, "contiguous_format" if name == "preserve_format" else name)

    def get_device(self):
        """int: -1 for CPU tensors."""
        return -1

    def data_ptr(self):
        """int: the address of the first element."""
        return self.array.ctypes.data

    def stride(self, dim=None):
        """Strides in elements (tuple, or one dimension's)."""
        strides = tuple(s // self.array.itemsize for s in self.array.strides)
        return strides if dim is None else strides[_dim(dim, self.array.ndim, "stride")]

    def storage_offset(self):
        """int: the position of the first element in the memory this tensor shares with its root."""
        base = self.array
        # numpy's as_strided hides the array under a non-array holder: follow any ``.base`` chain.
        while getattr(base, "base", None) is not None:
            base = base.base
        return (self.array.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // \
            self.array.itemsize

    def _version_value(self):
        counter = getattr(self, "_version_counter", None)
        return counter[0] if counter else 0

    _version = property(_version_value, doc="int: how many in-place writes this tensor (or a view of it) saw.")

    # -- Python protocol ---------------------------------------------------------------
    def __format__(self, format_spec):
        # As torch: a 0-d plain tensor formats as its number (f"{loss:.4f}"); anything else only without a spec.
        if self.array.ndim == 0 and type(self) is Tensor and not self._meta:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __repr__(self, *, tensor_contents=None):
        from vfw.frontends.torch._tensor_str import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    def __len__(self):
        if self.array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.array.shape[0]

    def __iter__(self):
        if self.array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element):
        """``element in tensor``: whether any entry equals ``element`` (a number, or a tensor broadcast)."""
        if not isinstance(element, (CoreTensor, numbers.Number)):
            raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                               f"{type(element)}.")
        return bool((element == self).any())

    def __hash__(self):
        return id(self)

    def __bool__(self):
        if self.array.size != 1:
            what = "no values" if self.array.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        if self._meta:
            raise RuntimeError(_meta.NO_ITEM)
        if _export_guard.exporting:
            _export_guard.check(self, "bool")
        return bool(self.array.reshape(()))

    def _scalar(self, kind):
        if self.array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self._meta:
            raise RuntimeError(_meta.NO_ITEM)
        if _export_guard.exporting:
            _export_guard.check(self, "number")
        return kind(self.array.reshape(()))

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __complex__(self):
        return self._scalar(complex)

    def __index__(self):
        if self.array.dtype.kind not in "iub" or self.array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        if _export_guard.exporting:
            _export_guard.check(self, "number")
        return int(self.array.reshape(()))

    def __array__(self, dtype=None, copy=None):
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if self._meta:
            raise NotImplementedError(_meta.NO_DATA)
        return CoreTensor.__array__(self, dtype, copy)

    def __deepcopy__(self, memo):
        if self.grad_node is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        new = type(self).__new__(type(self))
        new.array = self.array.copy()
        new.requires_grad = self.requires_grad
        new.grad_node = None
        grad = getattr(self, "_grad", None)
        if grad is not None:
            new._grad = grad.__deepcopy__(memo)
        memo[id(self)] = new
        if self.__dict__:
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __reduce_ex__(self, protocol):
        return (_rebuild, (type(self), self.array, self.requires_grad))

    # -- conversions -------------------------------------------------------------------
    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self.array.size != 1:
            raise RuntimeError(f"a Tensor with {self.array.size} elements cannot be converted to Scalar")
        if self._meta:
            raise RuntimeError(_meta.NO_ITEM)
        return self.array.reshape(()).item()

    def tolist(self):
        """The values as (nested) Python lists of numbers."""
        if self._meta:
            raise NotImplementedError(_meta.NO_DATA)
        return self.array.tolist()

    def numpy(self, *, force=False):
        """The values as a numpy array sharing memory (refused while the tensor requires grad)."""
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if self._meta:
            raise TypeError(_meta.NO_NUMPY)
        return self.array.copy() if force and self.requires_grad else self.array

    def to(self, *args, **kwargs):
        """Convert dtype and/or device: ``to(dtype)``, ``to(device, dtype)``, ``to(other)``, ``to(device=...)``."""
        dev, dtype, copy, memory_format = _tensor_to.parse(args, kwargs)
        _device.check(dev)
        if self._meta and dev is not None and not _meta.wanted(dev):
            raise NotImplementedError(_meta.NO_DATA)
        if dev is not None and not self._meta and _meta.wanted(dev):
            return _meta.mark(_dispatch.wrap(self.array.copy() if dtype is None else
                                             self.array.astype(_dtype.to_np(dtype))))
        layout = _memory_format_name(memory_format, "to")
        # As torch: a memory format asks for a copy unless it is the one the strides already suggest.
        relayout = layout != "preserve_format" and _memory_layout.suggested_format(self.array) != layout
        if dtype is None or _dtype.to_np(dtype) == self.array.dtype:
            converted = self.clone() if copy and not relayout else self
        else:
            converted = _dispatch.convert(self, _dtype.to_np(dtype))
        return converted.clone(memory_format=memory_format) if relayout else converted

    def type(self, dtype=None, non_blocking=False):
        """The type name (``'torch.FloatTensor'``) or, given a dtype, a converted tensor."""
        if dtype is None:
            return _TYPE_NAMES.get(self.array.dtype, "torch.Tensor")
        if isinstance(dtype, str):
            names = {v: k for k, v in _TYPE_NAMES.items()}
            if dtype not in names:
                raise ValueError(f"invalid type: '{dtype}'")
            return _dispatch.convert(self, names[dtype])
        legacy = getattr(dtype, "np_dtype", None)  # torch.FloatTensor and friends
        return self.to(dtype) if legacy is None else _dispatch.convert(self, legacy)

    def type_as(self, other):
        """This tensor converted to ``other``'s dtype."""
        return self.to(other.dtype)

    def cpu(self, memory_format=None):
        """This tensor (it already lives on the CPU); a meta tensor has no values to copy and raises."""
        if self._meta:
            raise NotImplementedError(_meta.NO_DATA)
        return self

    def cuda(self, device=None, non_blocking=False):
        _device.check("cuda")

    def float(self):
        return _dispatch.convert(self, _dtype.float32.np)

    def double(self):
        return _dispatch.convert(self, _dtype.float64.np)

    def half(self):
        return _dispatch.convert(self, _dtype.float16.np)

    def bfloat16(self):
        return _dispatch.convert(self, _dtype.bfloat16.np)

    def int(self):
        return _dispatch.convert(self, _dtype.int32.np)

    def long(self):
        return _dispatch.convert(self, _dtype.int64.np)

    def short(self):
        return _dispatch.convert(self, _dtype.int16.np)

    def char(self):
        return _dispatch.convert(self, _dtype.int8.np)

    def byte(self):
        return _dispatch.convert(self, _dtype.uint8.np)

    def bool(self):
        return _dispatch.convert(self, _dtype.bool.np)

    def clone(self, *, memory_format=None):
        """A copy with its own memory (differentiable), laid out as ``memory_format`` says: by default
        (``torch.preserve_format``) with this tensor's strides when its elements fill their memory densely in
        some dim order, else densely in the order of its strides; ``torch.contiguous_format``: row-major."""
        layout = _memory_format_name(memory_format, "clone")
        out = _dispatch.call("Identity", self)
        if out.array is self.array:
            _traced.own_memory(out, _memory_layout.cloned(self.array, layout))
        return out

    def contiguous(self, memory_format=None):
        """This tensor, or a copy laid out densely in ``memory_format`` (row-major by default)."""
        memory_format = _config.contiguous_format if memory_format is None else memory_format
        if self.is_contiguous(memory_format=memory_format):
            return self
        if _memory_format_name(memory_format, "contiguous") == "preserve_format":
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        return self.clone(memory_format=memory_format)

    # -- autograd ----------------------------------------------------------------------
    @property
    def is_leaf(self):
        """bool: not the result of a recorded op (all tensors that do not require grad are leaves)."""
        return self.grad_node is None

    @property
    def grad_fn(self):
        """The recorded op that produced this tensor (``None`` for leaves)."""
        node = self.grad_node
        return None if node is None else grad_fn_of(node, self.grad_slot)

    @property
    def grad(self):
        """Tensor or None: the gradient accumulated by ``backward()`` (leaves and ``retain_grad()`` tensors)."""
        grad = getattr(self, "_grad", None)
        if grad is None and self.grad_node is not None and not getattr(self, "_retains_grad", False):
            warn_for_user(_NON_LEAF_GRAD)  # as torch: reading it is most likely a mistake for the leaf's
        return grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, CoreTensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            sparse = getattr(value, "is_sparse", False)  # (a sparse tensor has no dense array)
            shape = tuple(value.shape) if sparse else value.array.shape
            if shape != self.array.shape:
                raise RuntimeError(f"assigned grad has data of a different size: {list(shape)} vs "
                                   f"{list(self.array.shape)}")
            if (value.dtype is not self.dtype) if sparse else value.array.dtype != self.array.dtype:
                raise RuntimeError("assigned grad has data of a different type")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        """bool: whether ``retain_grad()`` was called on this non-leaf tensor."""
        return getattr(self, "_retains_grad", False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` in place (floating point leaves only); returns self."""
        if requires_grad and not (self.array.dtype.kind in "fc" or self.array.dtype == _dtype.bfloat16.np):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")  # (torch words it so)
        if requires_grad and self._inference and not _inference.state.enabled:
            raise RuntimeError(_inference.REQUIRES_GRAD)
        if not requires_grad and self.grad_node is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        self.requires_grad = bool(requires_grad)
        if getattr(self, "_hooks", None) is None:
            self._hooks = None  # set once: backward reads it for every leaf (a missing slot costs a raise)
        return self

    def detach(self):
        """The same memory as a new leaf that does not require grad (shares the version counter)."""
        out = _dispatch.wrap(self.array)
        out._version_counter = _dispatch.version_counter(self)
        root = getattr(self, "_base", None)
        _dispatch.add_alias(self if root is None else root, out)
        _inference.share_mark(self, out)
        _meta.share(self, out)
        return out

    def detach_(self):
        """Make this tensor a leaf that does not require grad; returns self."""
        self.grad_node = None
        self.requires_grad = False
        return self

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in ``.grad`` during ``backward()``."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_node is None or getattr(self, "_retains_grad", False):
            return
        self._retains_grad = True
        target = self

        def keep(g):
            from vfw.frontends.torch.autograd import _engine
            _engine.accumulate_grad(target, g, create_graph=autograd.is_grad_enabled())

        self._retain_grad_hook = keep
        self.grad_node.add_hook(self.grad_slot, keep)

    def register_hook(self, hook):
        """Call ``hook(grad)`` with this tensor's gradient in backward; a returned tensor replaces it.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_node is None:
            hooks = getattr(self, "_hooks", None)
            if hooks is None:
                hooks = self._hooks = []
            hooks.append(hook)
            return _Handle(hooks, hook)

        def call(g):
            return hook(_dispatch.as_torch(g))

        self.grad_node.add_hook(self.grad_slot, call)
        hooks = self.grad_node.hooks[self.grad_slot]
        keep = self.__dict__.get("_retain_grad_hook")
        if keep in hooks:  # torch stores a retained gradient after every other hook of the tensor has run
            hooks.remove(keep)
            hooks.append(keep)
        return _Handle(hooks, call)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor into the ``.grad`` of the leaves it depends on."""
        _autograd_engine().backward([self], None if gradient is None else [gradient], retain_graph, create_graph,
                                    inputs)


@functools.cache
def _autograd_engine():
    from vfw.frontends.torch.autograd import _engine  # imports this module: bound on first use
    return _engine


_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, "
    "use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
    "the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


def _rebuild(cls, array, requires_grad):
    t = _new(cls)
    t.array = array
    t.requires_grad = requires_grad
    t.grad_node = None
    return t


Tensor.result_class = Tensor
_dispatch.Tensor = Tensor

_TYPE_NAMES = {np.dtype(k): v for k, v in [
    (np.float32, "torch.FloatTensor"), (np.float64, "torch.DoubleTensor"), (np.float16, "torch.HalfTensor"),
    (np.int64, "torch.LongTensor"), (np.int32, "torch.IntTensor"), (np.int16, "torch.ShortTensor"),
    (np.int8, "torch.CharTensor"), (np.uint8, "torch.ByteTensor"), (np.bool_, "torch.BoolTensor")]}
_TYPE_NAMES[_dtype.bfloat16.np] = "torch.BFloat16Tensor"


def _memory_format_name(memory_format, fn):
    """The name of a ``memory_format`` argument (``torch.preserve_format`` when None), or torch's TypeError."""
    if memory_format is None:
        return "preserve_format"
    if not isinstance(memory_format, _config.memory_format):
        raise TypeError(f"{fn}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(memory_format).__name__}")
    return memory_format._name


def _dim(dim, ndim, fn):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n
