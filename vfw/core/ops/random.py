"""Random ops and the engine's process-wide random state.

ONNX does not define the random stream, so only the distributions follow the
spec.  Streams:

* An op bound with a ``seed`` attribute owns a generator seeded from it when it
  is bound: a freshly bound op with the same seed reproduces the same sequence
  of outputs, and successive calls of one bound op continue its stream (as in
  onnxruntime and TensorFlow op-level seeds).
* An op without ``seed`` draws from the engine generator,
  :func:`default_generator`, which :func:`seed` resets; frontends call it for
  ``torch.manual_seed`` / ``tf.random.set_seed``.  It is a 32-bit Mersenne
  Twister seeded the way PyTorch seeds its CPU generator (:func:`mt19937_state`),
  so the torch frontend can reproduce torch's own streams from it.

Draws are made in float32 (float64 for float64 outputs) and rounded to float16
or bfloat16 outputs.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient, stop_gradient
from vfw.core.errors import DTypeError, OpAttributeError, OpInputError, ShapeError
from vfw.core.ops._common import array_of, execute, non_negative, require
from vfw.core.registry import Attr, TensorInfo, defop

_MASK64 = (1 << 64) - 1
_ENGINE = np.random.Generator(np.random.MT19937())


def mt19937_state(n):
    """The numpy ``MT19937`` state for seed ``n``: the classic ``init_genrand`` of its low 32 bits.

    This is how PyTorch seeds its CPU generator (``torch.manual_seed``), so draws from the
    returned state are torch's raw 32-bit stream.

    Returns
    -------
    dict
        For ``numpy.random.MT19937().state = ...``.
    """
    key = np.empty(624, np.uint32)
    x = int(n) & 0xFFFFFFFF
    for i in range(624):
        if i:
            x = (1812433253 * (x ^ (x >> 30)) + i) & 0xFFFFFFFF
        key[i] = x
    return {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}


def seed(n):
    """Reset the engine random state so that unseeded random ops become reproducible.

    The engine generator is reseeded in place, so references obtained from
    :func:`default_generator` stay valid.

    Parameters
    ----------
    n : int
        The seed; any Python integer (negative or wider than 64 bits values are
        reduced modulo 2**64, as ``torch.manual_seed`` does).
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"seed must be an integer, got {type(n).__name__}")
    _ENGINE.bit_generator.state = mt19937_state(int(n) & _MASK64)


def default_generator():
    """The engine's process-wide :class:`numpy.random.Generator`.

    Random ops without a ``seed`` attribute draw from it; :func:`seed`,
    :func:`get_state` and :func:`set_state` act on it.

    Returns
    -------
    numpy.random.Generator
    """
    return _ENGINE


def get_state():
    """A snapshot (a dict) of the engine random state, for :func:`set_state`."""
    return _ENGINE.bit_generator.state


def set_state(state):
    """Restore the engine random state from a :func:`get_state` snapshot."""
    _ENGINE.bit_generator.state = state


def _op_generator(seed_value):
    """The generator an op instance draws from: its own if seeded, else the engine's."""
    if seed_value is None:
        return _ENGINE
    if isinstance(seed_value, int):
        return np.random.default_rng(seed_value & _MASK64)
    value = float(seed_value)
    if value.is_integer():
        key = int(value) & _MASK64
    else:  # a non-integral float seed: its bit pattern is the key
        key = int(np.array(value, np.float64).view(np.uint64))
    return np.random.default_rng(key)


def _draw_dtype(dtype):
    return dt.float64 if dtype == dt.float64 else dt.float32


def _float_dtype(value):
    return None if value in dt.FLOATS else f"must be a floating-point type, got {dt.type_name(value)}"


def _index_dtype(value):
    return None if value in dt.INDEX else f"must be int32 or int64, got {dt.type_name(value)}"


def _normal(rng, shape, dtype, mean, scale):
    y = rng.standard_normal(shape, dtype=_draw_dtype(dtype))
    if scale != 1.0:
        y *= scale
    if mean != 0.0:
        y += mean
    return y.astype(dtype, copy=False)


def _uniform(rng, shape, dtype, low, high):
    y = rng.random(shape, dtype=_draw_dtype(dtype))
    if high - low != 1.0:
        y *= high - low
    if low != 0.0:
        y += low
    return y.astype(dtype, copy=False)


def _check_params(op, kind, a, b):
    if kind == "normal":
        require(op, b >= 0, f"scale must be non-negative, got {b}", OpAttributeError)
    else:
        require(op, a <= b, f"low ({a}) must not exceed high ({b})", OpAttributeError)


_SAMPLERS = {"normal": _normal, "uniform": _uniform}
_PARAMS = {"normal": (("mean", 0.0), ("scale", 1.0)), "uniform": (("low", 0.0), ("high", 1.0))}


def _define_random(kind):
    (a_name, a_default), (b_name, b_default) = _PARAMS[kind]
    sample = _SAMPLERS[kind]
    params = {a_name: Attr("float", a_default), b_name: Attr("float", b_default)}
    name = "Random" + kind.capitalize()

    def infer(attrs, infos):
        return [TensorInfo(attrs["shape"], attrs["dtype"])]

    def factory(shape, dtype, seed, **p):
        a, b = p[a_name], p[b_name]
        _check_params(name, kind, a, b)
        rng = _op_generator(seed)

        def kernel(out=None):
            return sample(rng, shape, dtype, a, b)

        return kernel

    factory.__doc__ = f"Tensor of the given shape drawn from a {kind} distribution."
    defop(name, inputs="", outputs="output:T", types={"T": dt.FLOATS}, infer=infer,
          attrs={"shape": Attr("ints", check=non_negative), "dtype": Attr("dtype", dt.float32, check=_float_dtype),
                 "seed": Attr("float", None), **params})(factory)

    def infer_like(attrs, infos):
        dtype = attrs["dtype"] if attrs["dtype"] is not None else infos[0].dtype
        return [TensorInfo(infos[0].shape, _like_dtype(name + "Like", dtype))]

    def factory_like(dtype, seed, **p):
        a, b = p[a_name], p[b_name]
        _check_params(name + "Like", kind, a, b)
        rng = _op_generator(seed)

        def kernel(x, out=None):
            return sample(rng, x.shape, dtype if dtype is not None else _like_dtype(name + "Like", x.dtype), a, b)

        return kernel

    factory_like.__doc__ = f"Tensor shaped like the input drawn from a {kind} distribution."
    defop(name + "Like", inputs="input:T1", outputs="output:T2",
          types={"T1": dt.ALL | {dt.string}, "T2": dt.FLOATS}, infer=infer_like,
          attrs={"dtype": Attr("dtype", None, check=_float_dtype), "seed": Attr("float", None), **params})(factory_like)


def _like_dtype(op, dtype):
    if dtype not in dt.FLOATS:
        raise DTypeError(f"{op}: input has dtype {dt.type_name(dtype)}; without a floating-point 'dtype' "
                         "attribute the output would have it too, which is not a floating-point type")
    return dtype


_define_random("normal")
_define_random("uniform")


def _multinomial_infer(attrs, infos):
    shape = infos[0].shape
    return [TensorInfo(None if shape is None else (shape[0], attrs["sample_size"]), attrs["dtype"])]


@defop("Multinomial", inputs="input:T1", outputs="output:T2", types={"T1": dt.FLOATS, "T2": dt.INDEX},
       attrs={"dtype": Attr("dtype", dt.int32, check=_index_dtype),
              "sample_size": Attr("int", 1, check=non_negative), "seed": Attr("float", None)},
       infer=_multinomial_infer)
def multinomial(dtype, sample_size, seed):
    """Class indices sampled from each row of unnormalized log-probabilities ([batch, classes])."""
    rng = _op_generator(seed)

    def kernel(x, out=None):
        require("Multinomial", x.ndim == 2, f"input must be 2-D [batch, classes], got shape {list(x.shape)}")
        n, c = x.shape
        if n == 0 or sample_size == 0:
            return np.zeros((n, sample_size), dtype)
        require("Multinomial", c > 0, f"input has no classes (shape {list(x.shape)})")
        logits = x.astype(np.float64)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        cdf = np.cumsum(probs, axis=1)
        total = cdf[:, -1:]
        if not np.all(np.isfinite(total) & (total > 0)):
            raise OpInputError("Multinomial: every row of the input needs a finite maximum log-probability "
                               "(rows of -inf, +inf or NaN cannot be sampled)")
        cdf /= total
        # One searchsorted over all rows: row b's cdf is shifted into [b, b + 1].
        rows = np.arange(n, dtype=np.float64)[:, None]
        u = rng.random((n, sample_size)) + rows
        idx = np.searchsorted((cdf + rows).ravel(), u.ravel(), side="right").reshape(n, sample_size)
        idx -= np.arange(n)[:, None] * c
        # rounding near a row's end could step past its last possible class
        last = c - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)
        np.minimum(idx, last[:, None], out=idx)
        return idx.astype(dtype, copy=False)

    return kernel


def _bernoulli_infer(attrs, infos):
    return [TensorInfo(infos[0].shape, attrs["dtype"] if attrs["dtype"] is not None else infos[0].dtype)]


@defop("Bernoulli", inputs="input:T1", outputs="output:T2", types={"T1": dt.FLOATS, "T2": dt.ALL},
       attrs={"dtype": Attr("dtype", None, check=lambda v: None if v in dt.ALL else "unsupported dtype"),
              "seed": Attr("float", None)},
       infer=_bernoulli_infer)
def bernoulli(dtype, seed):
    """Draw 1 with probability ``input`` and 0 otherwise, elementwise."""
    rng = _op_generator(seed)

    def kernel(p, out=None):
        if not np.all((p >= 0) & (p <= 1)):
            nan = " and NaN" if np.isnan(p).any() else ""
            raise OpInputError("Bernoulli: input probabilities must lie in [0, 1] "
                               f"(got values in [{np.nanmin(p)}, {np.nanmax(p)}]{nan})")
        draws = rng.random(p.shape, dtype=_draw_dtype(p.dtype)) < p
        return draws.astype(dtype if dtype is not None else p.dtype)

    return kernel


def _dropout_infer(attrs, infos):
    return [TensorInfo(infos[0].shape, infos[0].dtype), TensorInfo(infos[0].shape, dt.bool_)]


def _scalar(name, value):
    require("Dropout", value.size == 1, f"'{name}' must be a scalar, got shape {list(value.shape)}", ShapeError)
    return value.reshape(())[()]


@defop("Dropout", inputs="data:T ratio?:T1 training_mode?:T2", outputs="output:T mask?:T2",
       types={"T": dt.FLOATS, "T1": dt.FLOATS, "T2": dt.BOOL}, attrs={"seed": Attr("int", None)},
       value_inputs=("ratio", "training_mode"), infer=_dropout_infer)
def dropout(seed):
    """Zero elements with probability ``ratio`` and scale the rest by ``1 / (1 - ratio)`` in training mode.

    Without ``training_mode`` (or with it false) the output is ``data`` itself
    and the mask all true.  ``ratio`` (default 0.5) may be 1 as well as lie in
    ONNX's ``[0, 1)``: everything is dropped then (the output is zeros).
    """
    rng = _op_generator(seed)

    def kernel(data, ratio=None, training_mode=None, out=None):
        if training_mode is None or not _scalar("training_mode", training_mode):
            return data, np.ones(data.shape, dt.bool_)
        r = 0.5 if ratio is None else float(_scalar("ratio", ratio))
        if not 0.0 <= r <= 1.0:
            raise OpInputError(f"Dropout: ratio must lie in [0, 1], got {r}")
        if r == 0.0:
            return data.copy(), np.ones(data.shape, dt.bool_)
        if r == 1.0:
            return np.zeros_like(data), np.zeros(data.shape, dt.bool_)
        work = _draw_dtype(data.dtype)
        mask = rng.random(data.shape, dtype=work) >= r
        y = data.astype(work) * work.type(1.0 / (1.0 - r))
        y *= mask
        return y.astype(data.dtype, copy=False), mask

    return kernel


# Samples carry no gradient (as in PyTorch and TensorFlow); Dropout's gradient goes through its mask.
not_differentiable("RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                   "Bernoulli")


@register_gradient("Dropout")
def _dropout_grad(node, g, _g_mask):
    """Training mode: ``g * mask / (1 - ratio)`` with the mask the forward drew; otherwise ``g``.

    The mask is a constant of the backward (the saved output, cut from the graph), so a second
    derivative sees a linear map; ratio and training_mode get no gradient.
    """
    inputs = node.inputs + (None,) * (3 - len(node.inputs))
    ratio, training = array_of(inputs[1]), array_of(inputs[2])
    if training is None or not training.reshape(())[()]:
        return g, None, None
    r = 0.5 if ratio is None else float(ratio.reshape(())[()])
    if r == 0.0:
        return g, None, None
    work = _draw_dtype(g.array.dtype)
    mask = execute("Cast", stop_gradient(node.output(1)), to=work)
    scaled = execute("Mul", mask, np.asarray(1.0 / (1.0 - r) if r < 1.0 else 0.0, work))
    if g.array.dtype == work:
        return execute("Mul", g, scaled), None, None
    # half precision: scale in float32 and round once, as the kernel does
    return execute("Cast", execute("Mul", execute("Cast", g, to=work), scaled), to=g.array.dtype), None, None
