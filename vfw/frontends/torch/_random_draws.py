"""The ndarray samplers and argument helpers behind ``_random`` (torch's random sampling functions).

Draws come from a ``torch.Generator``: the default one wraps the engine's numpy generator,
others own one. rand, randn, normal, randint, random_, randperm, uniform_, normal_,
exponential_ and bernoulli (with tensor or number probabilities) follow torch's own algorithms on the
generator's 32-bit Mersenne Twister words, so a seed gives torch's numbers (up to an ulp
where torch's vectorized log/sin/cos round differently), and in-place fills walk a view's
elements in torch's order (:func:`walk_order`); multinomial is in ``_random_multinomial``; the
other distributions use numpy's samplers on the same stream. Half precision draws are made in
float32 and rounded once.

Under a graph trace each draw is recorded as a PyFunc op (``_traced.replayed``): every run of
the graph draws again from the generator, in the order the eager code draws, so a traced step
gives the numbers the same steps give eagerly.  The draw functions therefore take the
generator and static arguments from their closure and tensor values (probabilities, means,
rates) as arguments, and check those values themselves.
"""

import math
import operator

import ml_dtypes
import numpy as np

from vfw.core import autograd
from vfw.core import dtypes as dt
from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _device, _dtype, _meta
from vfw.frontends.torch._creation import factory_requires_grad
from vfw.frontends.torch._dispatch import assign, bump_version, dims_of, finish, snapshot, type_name
from vfw.frontends.torch.random import Generator, default_generator

F16, BF16, F32, F64 = np.dtype(np.float16), np.dtype(dt.bfloat16), np.dtype(np.float32), np.dtype(np.float64)
I64, U64 = np.dtype(np.int64), np.dtype(np.uint64)
FLOATS = dt.FLOATS
# Half precision samples are drawn and scaled in float32, then rounded once.
WORK = {F16: F32, BF16: F32}
REAL = {np.dtype(np.complex64): F32, np.dtype(np.complex128): F64}
_is_grad_enabled = autograd.is_grad_enabled


def _limits():
    """Per dtype: (lowest, highest, C++ type name, largest exactly representable integer or None)."""
    names = {"int8": "signed char", "uint8": "unsigned char", "int16": "short", "uint16": "unsigned short",
             "int32": "int", "uint32": "unsigned int", "int64": "long", "uint64": "unsigned long"}
    table = {np.dtype(np.bool_): (0, 1, "bool", None)}
    for name, cname in names.items():
        info = np.iinfo(name)
        table[np.dtype(name)] = (int(info.min), int(info.max), cname, None)
    for d, cname, digits in ((F16, "c10::Half", 11), (BF16, "c10::BFloat16", 8), (F32, "float", 24),
                             (F64, "double", 53)):
        top = float(ml_dtypes.finfo(d).max)
        table[d] = (-top, top, cname, 1 << digits)
    return table


LIMITS = _limits()


# -- arguments ---------------------------------------------------------------------------
def rng_of(generator, fn):
    """The ``torch.Generator`` behind a ``generator=`` argument (the default one for None)."""
    if generator is None:
        return default_generator
    if type(generator) is Generator:
        return generator
    raise TypeError(f"{fn}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}")


def size_of(args, size, fn):
    """A factory's shape from ``f(2, 3)``, ``f((2, 3))`` or ``f(size=(2, 3))``."""
    if size is None and args:
        dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        for v in dims:  # the common case: plain non-negative ints
            if type(v) is not int or v < 0:
                break
        else:
            return dims if type(dims) is tuple else tuple(dims)
    if size is not None:
        if args:
            raise TypeError(f"{fn}() received an invalid combination of arguments: 'size' given twice")
        args = (size,)
    elif not args:
        raise TypeError(f"{fn}() missing 1 required positional argument: 'size'")
    shape = dims_of(args)
    if shape and min(shape) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    return shape


def size_arg(size, fn):
    """A ``size`` argument that must be a sequence (``randint``, ``normal``)."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{fn}(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    return size_of((size,), None, fn)


def int_arg(value, name, fn):
    """An int argument: ints, numpy ints and integer one-element tensors (not bools, as torch)."""
    if type(value) is not bool:
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(value).__name__}")


def float_arg(value, name, fn):
    """A float argument: Python/numpy numbers (bools too, as torch) or a one-element tensor."""
    if isinstance(value, (int, float, np.integer, np.floating, np.bool_)):
        return float(value)
    if isinstance(value, CoreTensor) and value.array.size == 1:
        return float(value.array.reshape(()))
    raise TypeError(f"{fn}(): argument '{name}' must be float, not {type(value).__name__}")


def tensor_arg(x, fn):
    """``x``, which must be a tensor (the ``input`` argument)."""
    if not isinstance(x, CoreTensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    return x


def factory_dtype(dtype, out, fn, default=None):
    """The dtype of a factory's result: ``out``'s when given (``dtype`` must then agree)."""
    if out is not None:
        if not isinstance(out, CoreTensor):
            raise TypeError(f"{fn}(): argument 'out' must be Tensor, not {type(out).__name__}")
        od = out.array.dtype
        if dtype is not None and _dtype.to_np(dtype) != od:
            raise RuntimeError(f"dtype {type_name(_dtype.to_np(dtype))} does not match dtype of out parameter "
                               f"({type_name(od)})")
        return od
    if dtype is not None:
        return _dtype.to_np(dtype)
    return _dtype.default_float_np() if default is None else default


def made(t, requires_grad, out, device, fn):
    """A factory's result: the sample ``t`` (a tensor), written into ``out`` and made to require grad as asked."""
    if out is None and device is None and not requires_grad and not _meta.wanted(None):
        return t
    if device is not None:
        _device.check(device)
    if _meta.wanted(device):
        _meta.mark(t)
    if out is not None:
        t = finish(t, out, fn)
    if requires_grad:
        factory_requires_grad(t)
    return t


def named_args(args, kwargs, fn, names):
    """Positional and keyword values of arguments spelled as Python keywords (``from``, ``to``)."""
    if len(args) > len(names):
        raise TypeError(f"{fn}() takes from 0 to {len(names)} positional arguments but {len(args)} were given")
    values = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{k}'")
        if k in values:
            raise TypeError(f"{fn}() got multiple values for argument '{k}'")
        values[k] = v
    return values


def link_zero_grad(result, inputs, name):
    """Attach ``result`` to the graph of ``inputs`` with zero gradients (torch's derivative of samplers)."""
    def forward(*xs):
        def grads(*_):
            return tuple(CoreTensor.wrap(np.zeros(x.array.shape, x.array.dtype)) if isinstance(x, CoreTensor)
                         else None for x in xs)
        grads.function_name = name
        return result, grads
    return autograd.custom_gradient(forward)(*inputs)


def tracked(*xs):
    """Whether autograd records a result computed from ``xs``."""
    for x in xs:
        if isinstance(x, CoreTensor) and x.requires_grad:
            return _is_grad_enabled()
    return False


# -- draws (ndarrays) ------------------------------------------------------------------
def _words(gen, n):
    """``n`` raw 32-bit Mersenne Twister words (as uint64)."""
    return gen._rng.bit_generator.random_raw(n)


def _words64(gen, n):
    """``n`` 64-bit words, each made of two 32-bit ones (high first), as torch's random64()."""
    w = _words(gen, 2 * n)
    return (w[0::2] << _32) | w[1::2]


_32 = np.uint64(32)
_LOW24 = np.uint64((1 << 24) - 1)
_LOW53 = np.uint64((1 << 53) - 1)


def unit(gen, shape, d):
    """Uniform draws in [0, 1) of dtype ``d`` (real and imaginary parts each for complex dtypes).

    As torch: float32 takes 24 bits of one word, float64 53 bits of two; halves round float32 draws to
    nearest, a draw rounded up to 1 becoming 0.
    """
    n = math.prod(shape)
    if d == F32:
        u = (_words(gen, n) & _LOW24).astype(F32)
        u *= F32.type(2.0 ** -24)
        return u.reshape(shape)
    if d == F64:
        u = (_words64(gen, n) & _LOW53).astype(F64)
        u *= 2.0 ** -53
        return u.reshape(shape)
    if d in WORK:
        return _wrapped(unit(gen, shape, F32).astype(d), d, 0.0, 1.0)
    if d in REAL:
        return unit(gen, shape + (2,), REAL[d]).view(d).reshape(shape)
    raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{type_name(d)}'")


def uniform(gen, shape, d, low, high):
    """Uniform draws in ``[low, high)`` of dtype ``d`` (a real float dtype), as torch makes them.

    A unit draw of the working precision (float64 for float64, else float32) times ``high - low`` plus
    ``low``, with both bounds and their difference in that precision and one rounding (torch's compiled
    kernel fuses the multiply-add), then rounded to ``d``; a value rounded up to ``high`` becomes ``low``.
    """
    if low == 0.0 and high == 1.0:
        return unit(gen, shape, d)
    work = F64 if d == F64 else F32
    lo, hi = work.type(low), work.type(high)
    x = fused_multiply_add(unit(gen, shape, work), hi - lo, lo)
    return _wrapped(x.astype(d, copy=False), d, low, high)


def _wrapped(y, d, low, high):
    """``y`` (draws of dtype ``d``) with values rounded up to ``high`` set to ``low``, as torch's samplers do."""
    top = d.type(high)
    if (y == top).any():
        y[y == top] = d.type(low)
    return y


def fused_multiply_add(a, b, c):
    """``a * b + c`` rounded once, for a float32 or float64 array ``a`` and numbers ``b`` and ``c`` of its dtype.

    float32: the product is exact in float64, and the float64 sum, rounded to odd, rounds to float32 as the exact
    value would.  float64: Boldo and Melquiond's emulation of a fused multiply-add (an exact product split in two
    by Dekker's algorithm, an exact sum, the low parts added with rounding to odd, one last rounding).
    """
    if a.dtype == F32:
        return _odd_sum(a.astype(F64) * F64.type(b), F64.type(c)).astype(F32)
    if not abs(b) < 2.0 ** 995:  # Dekker's splitting would overflow: one multiply and add, rounded twice
        return a * b + c
    high, low = _exact_product(a, b)
    total = high + c
    error = _sum_error(high, c, total)
    return total + _odd_sum(error, low)


def _exact_product(a, b):
    """``(p, e)`` with ``p + e == a * b`` exactly (Dekker's product with Veltkamp's splitting)."""
    p = a * b
    a_high, a_low = _halves(a)
    b_high, b_low = _halves(np.asarray(b, F64))
    return p, ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low


def _halves(x):
    """``x`` split into two float64 parts of 26 significant bits each (Veltkamp)."""
    scaled = x * 134217729.0  # 2**27 + 1
    high = scaled - (scaled - x)
    return high, x - high


def _sum_error(x, y, total):
    """The rounding error of ``total = x + y`` (Knuth's two-sum): ``x + y == total + error`` exactly."""
    y_part = total - x
    return (x - (total - y_part)) + (y - y_part)


def _odd_sum(x, y):
    """``x + y`` (float64 arrays or numbers) rounded to odd: inexact sums take the neighbour with an odd last bit."""
    total = np.asarray(x + y, F64)
    error = _sum_error(x, y, total)
    fix = (error != 0) & ((total.view(np.int64) & 1) == 0)
    if fix.any():
        total = total.copy()
        total[fix] = np.nextafter(total[fix], np.where(np.broadcast_to(error, total.shape)[fix] > 0, np.inf, -np.inf))
    return total


def normal_fill(gen, shape, d, mean, std, out=None, serial=False):
    """Normal draws of dtype ``d``, as torch makes them (into ``out``, a float32/float64 array, when given).

    Like torch: fewer than 16 values, or any number for a non-contiguous tensor (``serial``), come
    from scalar Box-Muller in float64 (the second value of a pair is cached on the generator for
    the next draw), rounded once; 16 or more from uniforms of the working dtype transformed in
    blocks of 16, a last partial block being redrawn whole.
    """
    n = math.prod(shape)
    if d in REAL:  # real and imaginary parts share the unit variance
        parts = normal_fill(gen, shape + (2,), REAL[d], 0.0, 1.0, serial=serial)
        parts *= REAL[d].type(np.sqrt(0.5))
        return _scaled(parts.view(d).reshape(shape), mean, std, out)
    if d != F64 and d != F32 and d not in WORK:
        if not n:  # torch checks the dtype only when there is something to draw
            return np.empty(shape, d)
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{type_name(d)}'")
    work = F64 if d == F64 else F32
    if n < 16 or serial:
        z = _scalar_normals(gen, n)
        z *= std
        z += mean
        z = z.astype(d if out is None else out.dtype)  # one rounding from double, as torch's static_cast
    else:
        z = _block_normals(gen, n, work)
        z = _scaled(z, mean, std, None)
    z = z.reshape(shape)
    if out is not None:
        out[...] = z
        return out
    return z.astype(d, copy=False)


def _scaled(z, mean, std, out):
    if std != 1.0:
        z *= z.dtype.type(std)
    if mean != 0.0:
        z += z.dtype.type(mean)
    if out is not None:
        out[...] = z
        return out
    return z


def _scalar_normals(gen, n):
    """``n`` float64 standard normals from torch's scalar Box-Muller (sharing the generator's cache)."""
    z = np.empty(n)
    start = 0
    if n and gen.normal_cache is not None:
        z[0] = gen.normal_cache
        gen.normal_cache = None
        start = 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = (_words64(gen, 2 * pairs) & _LOW53).astype(F64) * 2.0 ** -53
        radius = np.sqrt(-2.0 * np.log1p(-u[1::2]))
        angle = 2.0 * np.pi * u[0::2]
        both = np.empty(2 * pairs)
        both[0::2] = radius * np.cos(angle)
        both[1::2] = radius * np.sin(angle)
        z[start:] = both[:n - start]
        if (n - start) % 2:
            gen.normal_cache = float(both[-1])
    return z


def _block_normals(gen, n, work):
    """``n`` (>= 16) standard normals of dtype ``work`` from torch's vectorized Box-Muller."""
    z = unit(gen, (n,), work)
    whole = n - n % 16
    _box_muller16(z[:whole].reshape(-1, 16))
    if n % 16:
        tail = unit(gen, (16,), work)
        _box_muller16(tail.reshape(1, 16))
        z[n - 16:] = tail
    return z


def _box_muller16(blocks):
    """In place, per row of 16 uniforms: radius from the first 8, angle from the last 8."""
    radius = np.sqrt(-2 * np.log(1 - blocks[:, :8]))
    angle = 2 * np.pi * blocks[:, 8:]
    blocks[:, :8] = radius * np.cos(angle)
    blocks[:, 8:] = radius * np.sin(angle)


def check_std(std):
    """Refuse a negative or NaN standard deviation, as torch does."""
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def integers(gen, low, high, shape, d):
    """Integers in [low, high) as dtype ``d`` (bounds already checked against ``d``): as torch, one
    32-bit word modulo the span, or one 64-bit word for spans of 2**32 and more."""
    span = high - low
    n = math.prod(shape)
    words = _words(gen, n) if span < 1 << 32 else _words64(gen, n)
    k = words % np.uint64(span)
    if low >= 0 and high - 1 > np.iinfo(np.int64).max:
        k += np.uint64(low)
    else:
        k = k.astype(I64)
        if low:
            k += low
    return k.reshape(shape).astype(d, copy=False)


def permutation(gen, n):
    """A random permutation of ``0 .. n-1`` as torch's randperm draws it (a forward Fisher-Yates shuffle)."""
    perm = list(range(n))
    if n > 1:
        offsets = (_words(gen, n - 1) % np.arange(n, 1, -1, dtype=U64)).tolist()
        for i, k in enumerate(offsets):
            j = i + k
            perm[i], perm[j] = perm[j], perm[i]
    return np.array(perm, I64)


def check_int_range(low, high, d):
    """Refuse ``[low, high)`` ranges that are empty or do not fit ``d``; warn where floats lose integers."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if d not in LIMITS:
        raise NotImplementedError(f"\"random_from_to\" not implemented for '{type_name(d)}'")
    lo, hi, cname, exact = LIMITS[d]
    if low < lo:
        raise RuntimeError(f"from is out of bounds for {cname}")
    if high - 1 > hi:
        raise RuntimeError(f"to - 1 is out of bounds for {cname}")
    if exact is not None:
        for bound, what in ((low, "from"), (high - 1, "to - 1")):
            if not -exact <= bound <= exact:
                warn_for_user(f"{what} is out of bounds [-(2^{exact.bit_length() - 1}), "
                              f"2^{exact.bit_length() - 1}]. Due to precision limitations {cname} can support "
                              "discrete uniform distribution only within this range.", UserWarning)


def random_top(d):
    """One past the largest value ``random_()`` draws for dtype ``d``."""
    if d not in LIMITS:
        raise NotImplementedError(f"\"random_\" not implemented for '{type_name(d)}'")
    lo, hi, _, exact = LIMITS[d]
    return (hi if exact is None else exact) + 1


# -- bernoulli and exponential ------------------------------------------------------------
def bernoulli_draw(gen, shape, p, d, fn):
    """0/1 draws of dtype ``d`` that are 1 with probability ``p`` (a number, or a float tensor or array)."""
    if isinstance(p, (CoreTensor, np.ndarray)):
        pa = p.array if isinstance(p, CoreTensor) else p
        if pa.dtype not in FLOATS and pa.size:  # torch checks the dtype only when there is something to draw
            raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{type_name(pa.dtype)}'")
        if pa.size and not (pa.min() >= 0 and pa.max() <= 1):  # NaN fails both
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        try:
            pa = np.broadcast_to(pa, shape)
        except ValueError:
            raise RuntimeError(f"{fn}: p of shape {list(pa.shape)} cannot be expanded to shape {list(shape)}") \
                from None
        work = F64 if pa.dtype == F64 else F32  # as torch: a 24-bit (53-bit for float64 p) uniform below p
        return (unit(gen, shape, work) < pa.astype(work, copy=False)).astype(d)
    p = float_arg(p, "p", fn)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    return bernoulli_scalar(gen, shape, p).astype(d)


def bernoulli_scalar(gen, shape, p):
    """Bool draws that are True with probability ``p`` (a number), in C order.

    As torch's CPU kernel (also for dropout masks): one 53-bit uniform (two words) per element,
    True when below ``p``, whatever the result's dtype.
    """
    return unit(gen, shape, F64) < p


def exponential(gen, shape, lambd, d):
    """Exponential draws of rate ``lambd`` and dtype ``d``, as torch: ``(-1 / lambd) * log1p(-u)`` in float64 from
    53-bit uniforms, rounded to ``d`` (halves through float32).

    float64 draws take the C library's ``log1p`` (torch's), element by element: numpy's own differs in the
    last bit on a few percent of them, which only float64 results keep.
    """
    u = unit(gen, shape, F64)
    if d == F64:
        e = np.fromiter(map(math.log1p, (-u).ravel().tolist()), F64, u.size).reshape(shape)
    else:
        e = np.log1p(-u)
    e *= -1.0 / lambd
    return e.astype(F32).astype(d) if d in WORK else e.astype(d, copy=False)


def walk_order(a):
    """``(perm, back)``: the dims of ``a`` in the order torch fills a tensor, and the inverse permutation;
    None when that is C order.

    torch's in-place samplers walk a tensor's elements as its TensorIterator does: dims from the
    largest stride outside to the smallest inside (equal strides: the longer dim outside), which
    for views is the order of the elements in memory.
    """
    long_dims = [k for k in range(a.ndim) if a.shape[k] != 1]
    walk = sorted(long_dims, key=lambda k: (-a.strides[k], -a.shape[k], k))
    if walk == long_dims:
        return None
    perm = tuple(k for k in range(a.ndim) if a.shape[k] == 1) + tuple(walk)
    return perm, tuple(int(k) for k in np.argsort(perm))


def in_memory_order(a, draw):
    """A function returning ``draw(shape)`` (samples in C order) laid out over ``a`` as torch fills it:
    drawn for ``a``'s shape in :func:`walk_order` and transposed back."""
    order = walk_order(a)
    if order is None:
        return lambda: draw(a.shape)
    perm, back = order
    shape = tuple(a.shape[k] for k in perm)
    return lambda: draw(shape).transpose(back)


# -- in-place samplers ----------------------------------------------------------------------
def fill(t, sample, name, *params):
    """Write ``sample`` (a tensor of ``t``'s dtype and shape) into ``t`` as an in-place op."""
    if not tracked(t, *params):
        if not _tracing:  # assign's plain path, without its dtype and shape checks
            np.copyto(t.array, sample.array)
            return done(t)
        return assign(t, sample, name.lower() + "_")  # tells the trace
    result = link_zero_grad(sample, (snapshot(t), *params), name)
    return assign(t, result, name.lower() + "_")


def direct(t):
    """``t``'s array when samples can be drawn straight into it (float32/64, C-contiguous, no autograd, no
    graph trace, which must see the sample as a value)."""
    a = t.array
    if (a.dtype == F32 or a.dtype == F64) and a.flags.c_contiguous and a.flags.writeable \
            and not (t.requires_grad and _is_grad_enabled()) and not _tracing:
        return a
    return None


def done(t):
    """Finish an in-place write into ``t``'s memory: bump its version, return it."""
    bump_version(t)
    return t
