"""Random sampling: rand/randn/randint/randperm(+_like), normal, bernoulli, multinomial, poisson, in-place samplers.

Samples come from numpy generators: the default one is the engine's (seeded by
``torch.manual_seed``), others belong to ``torch.Generator`` objects. Most samplers
replay torch's own algorithms on its Mersenne Twister words (``_random_draws``,
``_random_multinomial``), in-place ones walking a view's elements in memory order as
torch does, so a seed gives torch's values. Samples carry no gradient: as
in torch, a result computed from tensors that require grad is attached to them
with zero gradients. The ndarray samplers and argument helpers are in
``_random_draws``.

Each draw goes through ``replayed`` (a closure over the generator and the static
arguments, taking tensor arguments' arrays): eagerly it just runs, and under a graph
trace it becomes a PyFunc op that draws again on every run of the graph.
"""

import math

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dtype, _memory_layout, _meta
from vfw.frontends.torch._count_samplers import poisson_draws
from vfw.frontends.torch._dispatch import check_inplace, finish, type_name, wrap
from vfw.frontends.torch._random_draws import (
    FLOATS,
    I64,
    LIMITS,
    REAL,
    WORK,
    bernoulli_draw,
    bernoulli_scalar,
    check_int_range,
    check_std,
    direct,
    done,
    exponential,
    factory_dtype,
    fill,
    float_arg,
    in_memory_order,
    int_arg,
    integers,
    link_zero_grad,
    made,
    named_args,
    normal_fill,
    permutation,
    random_top,
    rng_of,
    size_arg,
    size_of,
    tensor_arg,
    tracked,
    uniform,
    unit,
    walk_order,
)
from vfw.frontends.torch._random_multinomial import multinomial_rows
from vfw.frontends.torch._traced import replayed
from vfw.frontends.torch.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "randperm",
           "normal", "bernoulli", "multinomial", "poisson"]


# -- factories ---------------------------------------------------------------------------
def _drawn(draw, shape, d, device):
    """The sample ``draw()`` makes, or for a meta ``device`` a stand-in drawn from no generator (as torch's meta
    factories: later draws must not move)."""
    if _meta.wanted(device):
        return wrap(np.zeros(shape, d))
    return replayed(draw)


def rand(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    """Uniform samples from ``[0, 1)`` of shape ``size`` (default float dtype)."""
    shape = size_of(args, size, "rand")
    d = factory_dtype(dtype, out, "rand")
    gen = rng_of(generator, "rand")
    return made(_drawn(lambda: unit(gen, shape, d), shape, d, device), requires_grad, out, device, "rand")


def randn(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    """Standard normal samples of shape ``size`` (default float dtype)."""
    shape = size_of(args, size, "randn")
    d = factory_dtype(dtype, out, "randn")
    gen = rng_of(generator, "randn")
    return made(_drawn(lambda: normal_fill(gen, shape, d, 0.0, 1.0), shape, d, device), requires_grad, out, device,
                "randn")


def _like_dtype(input, dtype, fn):
    return tensor_arg(input, fn).array.dtype if dtype is None else _dtype.to_np(dtype)


def _like_layout(input, d):
    """An empty array of dtype ``d`` laid out as torch lays out a ``*_like`` tensor (a permuted input's dim order
    kept): its samples are drawn in that memory order."""
    return _memory_layout.empty_like(input.array, d)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              generator=None, pin_memory=False):
    """Uniform ``[0, 1)`` samples shaped (and typed, unless ``dtype``) like ``input``."""
    d = _like_dtype(input, dtype, "rand_like")
    gen, template = rng_of(generator, "rand_like"), _like_layout(input, d)
    return made(replayed(in_memory_order(template, lambda shape: unit(gen, shape, d))), requires_grad, None, device,
                "rand_like")


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
               generator=None, pin_memory=False):
    """Standard normal samples shaped (and typed, unless ``dtype``) like ``input``."""
    d = _like_dtype(input, dtype, "randn_like")
    gen, template = rng_of(generator, "randn_like"), _like_layout(input, d)
    serial = not template.flags.c_contiguous  # as normal_: torch draws a non-contiguous tensor one value at a time
    return made(replayed(in_memory_order(template, lambda shape: normal_fill(gen, shape, d, 0.0, 1.0, serial=serial))),
                requires_grad, None, device, "randn_like")


def _low_high(args, low, high, fn):
    """``(low, high)`` from torch's ``(high)`` / ``(low, high)`` positional forms and keywords."""
    n = len(args)
    if high is None:
        if n == 1 and low is None:
            low, high = 0, args[0]
        elif n == 2 and low is None:
            low, high = args
        else:
            raise TypeError(f"{fn}() received an invalid combination of arguments: expected (high) or (low, high)")
    elif n == 1 and low is None:
        low = args[0]
    elif n:
        raise TypeError(f"{fn}() received an invalid combination of arguments: expected (high) or (low, high)")
    return int_arg(0 if low is None else low, "low", fn), int_arg(high, "high", fn)


def randint(*args, low=None, high=None, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False):
    """Integers drawn uniformly from ``[low, high)``: ``randint(high, size)`` or ``randint(low, high, size)``.

    The dtype is int64 unless ``dtype`` (or ``out``) says otherwise.
    """
    if size is None:
        if not args:
            raise TypeError("randint() missing 1 required positional argument: 'size'")
        args, size = args[:-1], args[-1]
    low, high = _low_high(args, low, high, "randint")
    shape = size_arg(size, "randint")
    d = factory_dtype(dtype, out, "randint", I64)
    check_int_range(low, high, d)
    gen = rng_of(generator, "randint")
    return made(_drawn(lambda: integers(gen, low, high, shape, d), shape, d, device), requires_grad, out, device,
                "randint")


def randint_like(input, *args, low=None, high=None, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None, generator=None, pin_memory=False):
    """Integers from ``[low, high)`` shaped (and typed, unless ``dtype``) like ``input``."""
    d = _like_dtype(input, dtype, "randint_like")
    low, high = _low_high(args, low, high, "randint_like")
    check_int_range(low, high, d)
    gen, template = rng_of(generator, "randint_like"), _like_layout(input, d)
    return made(replayed(in_memory_order(template, lambda shape: integers(gen, low, high, shape, d))), requires_grad,
                None, device, "randint_like")


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype``)."""
    n = int_arg(n, "n", "randperm")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    d = factory_dtype(dtype, out, "randperm", I64)
    if d not in LIMITS or d == np.bool_:
        raise NotImplementedError(f"\"randperm\" not implemented for '{type_name(d)}'")
    _, hi, cname, exact = LIMITS[d]
    if exact is not None and n > exact + 1:
        raise RuntimeError(f"n cannot be greater than {exact + 1} for {type_name(d)} type.")
    if exact is None and n - 1 > hi:
        raise RuntimeError(f"value cannot be converted to type {cname} without overflow")
    gen = rng_of(generator, "randperm")
    return made(_drawn(lambda: permutation(gen, n).astype(d, copy=False), (n,), d, device), requires_grad, out,
                device, "randperm")


# -- distributions with tensor parameters ------------------------------------------------
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """Normal samples: elementwise for tensor ``mean`` and/or ``std`` (broadcast), else of shape ``size``.

    With tensors the result has ``mean``'s dtype (``std``'s when ``mean`` is a number).
    """
    rng = rng_of(generator, "normal")
    mean_t, std_t = isinstance(mean, CoreTensor), isinstance(std, CoreTensor)
    if not (mean_t or std_t):
        m, s = float_arg(mean, "mean", "normal"), float_arg(std, "std", "normal")
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: (float mean, float std) "
                            "needs 'size'")
        shape = size_arg(size, "normal")
        d = factory_dtype(dtype, out, "normal")
        check_std(s)
        return made(_drawn(lambda: normal_fill(rng, shape, d, m, s), shape, d, device), requires_grad, out, device,
                    "normal")
    if size is not None:
        raise TypeError("normal() received an invalid combination of arguments: 'size' goes with float mean and std")
    m = mean.array if mean_t else float_arg(mean, "mean", "normal")
    s = std.array if std_t else float_arg(std, "std", "normal")
    d = out.array.dtype if isinstance(out, CoreTensor) else (mean.array.dtype if mean_t else std.array.dtype)
    if not std_t:
        check_std(s)
    try:
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    except ValueError:
        raise RuntimeError(f"normal: the shapes of mean {list(np.shape(m))} and std {list(np.shape(s))} do not "
                           "broadcast") from None
    if mean_t and not std_t and isinstance(out, CoreTensor) and out.array.shape != shape:
        # this overload writes into ``out`` without resizing it
        raise RuntimeError(f"normal: out has shape {list(out.array.shape)}, but the result has shape {list(shape)}")
    work = WORK.get(d, d)

    def draw(*values):  # the tensor arguments' arrays, mean first
        given = iter(values)
        m_, s_ = next(given) if mean_t else m, next(given) if std_t else s
        if std_t and s_.size and not np.all(s_ >= 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        z = normal_fill(rng, shape, d, 0.0, 1.0)  # as torch: standard draws, then scaled and shifted
        z = z.astype(work, copy=False)
        z *= np.asarray(s_).astype(work, copy=False)
        z += np.asarray(m_).astype(work, copy=False)
        return z.astype(d, copy=False)

    result = replayed(draw, *[t for t, given in ((mean, mean_t), (std, std_t)) if given])
    if tracked(mean, std):
        result = link_zero_grad(result, (mean, std), "Normal")
    return finish(result, out, "normal")


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples, 1 with probability ``input`` (elementwise), or with probability ``p`` when given.

    The result has ``input``'s dtype (``out``'s when given).
    """
    tensor_arg(input, "bernoulli")
    rng = rng_of(generator, "bernoulli")
    if p is None:
        pa = input.array
        if pa.dtype not in FLOATS and pa.size:
            raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{type_name(pa.dtype)}'")
        d = out.array.dtype if isinstance(out, CoreTensor) else pa.dtype
        result = replayed(lambda probabilities: bernoulli_draw(rng, pa.shape, probabilities, d, "bernoulli"), input)
    else:
        if out is not None:
            raise TypeError("bernoulli() received an invalid combination of arguments: 'out' goes without 'p'")
        shape, d = input.array.shape, input.array.dtype
        result = _bernoulli_sample(rng, shape, p, d, "bernoulli")
    if tracked(input, p):
        result = link_zero_grad(result, (input, p), "Bernoulli")
    return finish(result, out, "bernoulli")


def _bernoulli_sample(gen, shape, p, d, fn):
    """``bernoulli_draw`` as a tensor; a tensor ``p`` is an input of the (replayed) draw."""
    if isinstance(p, CoreTensor):
        return replayed(lambda probabilities: bernoulli_draw(gen, shape, probabilities, d, fn), p)
    return replayed(lambda: bernoulli_draw(gen, shape, p, d, fn))


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Category indices (int64) drawn from the weights in each row of ``input`` (1-D or 2-D).

    Without replacement each row yields distinct categories, in the order they were drawn.  The
    draws are torch's (see ``_random_multinomial``): a seed gives torch's indices.
    """
    tensor_arg(input, "multinomial")
    k = int_arg(num_samples, "num_samples", "multinomial")
    rng = rng_of(generator, "multinomial")
    w = input.array
    if w.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if w.dtype not in FLOATS:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {type_name(w.dtype)}")
    if k <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    c = w.shape[-1]
    if not replacement and k > c:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if c > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    if out is not None and (not isinstance(out, CoreTensor) or out.array.dtype != I64):
        got = type_name(out.array.dtype) if isinstance(out, CoreTensor) else type(out).__name__
        raise RuntimeError(f"multinomial expects Long tensor out, got: {got}")
    if not w.size:
        if w.shape[0] if w.ndim == 2 else 1:  # rows to draw from, of zero categories
            raise RuntimeError("multinomial: cannot sample from rows of zero categories")
        return finish(wrap(np.zeros(w.shape[:-1] + (k,), I64)), out, "multinomial")

    def draw(weights):
        rows = weights.reshape(weights.shape[0] if weights.ndim == 2 else 1, c)
        return multinomial_rows(rng, rows, k, replacement).reshape(weights.shape[:-1] + (k,))

    return finish(replayed(draw, input), out, "multinomial")


def poisson(input, generator=None):
    """Poisson samples with the rates in ``input`` (same dtype as ``input``)."""
    tensor_arg(input, "poisson")
    if input.array.dtype not in FLOATS:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{type_name(input.array.dtype)}'")
    rng = rng_of(generator, "poisson")

    def draw(rates):
        lam = rates.astype(np.float64)
        if lam.size and not np.all(lam >= 0):
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        return poisson_draws(rng, lam).astype(rates.dtype)

    result = replayed(draw, input)
    if tracked(input):
        result = link_zero_grad(result, (input,), "Poisson")
    return result


# -- in-place samplers -------------------------------------------------------------------
def _float_self(t, fn, error, checked_when_empty=True):
    """``t``'s dtype, which must be floating (unless ``t`` is empty and torch skips the check)."""
    check_inplace(t, fn)
    d = t.array.dtype
    if d not in FLOATS and (checked_when_empty or t.array.size):
        raise error(d)
    return d


def _not_implemented(kernel):
    def error(d):
        return NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(d)}'")
    return error


def _continuous(what):
    def error(d):
        return RuntimeError(f"{what} distribution is a continuous probability distribution. dtype must be a "
                            f"floating point but you specified {type_name(d)}")
    return error


def uniform_(self, *args, generator=None, **kwargs):
    """Fill with uniform samples from ``[from, to)`` (defaults 0 and 1)."""
    check_inplace(self, "uniform_")
    if self._meta:  # no values to fill, and nothing drawn
        return self
    d = self.array.dtype
    if d not in FLOATS and d not in REAL:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{type_name(d)}'")
    a, b = _uniform_range(args, kwargs, d) if args or kwargs else (0.0, 1.0)
    gen = rng_of(generator, "uniform_")

    def draw(shape):
        if d not in REAL:
            return uniform(gen, shape, d, a, b)
        u = unit(gen, shape, d)
        if a != 0.0 or b != 1.0:  # each part scaled in float64, then rounded once
            wide = u.astype(np.complex128)
            wide *= b - a
            wide += a
            u = wide.astype(d)
        return u

    out = direct(self)
    if out is not None:
        out[...] = draw(out.shape)
        return done(self)
    return fill(self, replayed(in_memory_order(self.array, draw)), "Uniform")


def _uniform_range(args, kwargs, d):
    values = named_args(args, kwargs, "uniform_", ("from", "to"))
    a = float_arg(values.get("from", 0.0), "from", "uniform_")
    b = float_arg(values.get("to", 1.0), "to", "uniform_")
    top, cname = (LIMITS[d][1], LIMITS[d][2]) if d in LIMITS else (float(np.finfo(REAL[d]).max), "complex")
    for v, what in ((a, "from"), (b, "to")):
        if not -top <= v <= top:
            raise RuntimeError(f"{what} is out of bounds for {cname}")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}")
    if b - a > top:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{type_name(d)}>::max(), but found "
                           f"to={b:g} and from={a:g} which result in to-from to exceed the limit")
    return a, b


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal samples of mean ``mean`` and standard deviation ``std``."""
    check_inplace(self, "normal_")
    if self._meta:  # no values to fill, and nothing drawn
        return self
    d = self.array.dtype
    if d not in FLOATS and d not in REAL and self.array.size:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{type_name(d)}'")
    mean, std = float_arg(mean, "mean", "normal_"), float_arg(std, "std", "normal_")
    check_std(std)
    if not self.array.size:  # torch checks the dtype only when there is something to draw
        return done(self)
    rng = rng_of(generator, "normal_")
    out = direct(self)
    if out is not None:
        normal_fill(rng, out.shape, d, mean, std, out)
        return done(self)
    # torch draws a non-contiguous tensor one scalar normal at a time, in memory order
    serial = not self.array.flags.c_contiguous
    return fill(self, replayed(in_memory_order(self.array, lambda shape: normal_fill(rng, shape, d, mean, std,
                                                                                    serial=serial))), "Normal")


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples that are 1 with probability ``p`` (a number or a float tensor broadcast to self)."""
    check_inplace(self, "bernoulli_")
    out = direct(self)
    if out is not None and not isinstance(p, CoreTensor):
        p = float_arg(p, "p", "bernoulli_")
        if not 0.0 <= p <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        np.copyto(out, bernoulli_scalar(rng_of(generator, "bernoulli_"), out.shape, p))
        return done(self)
    gen, d, shape = rng_of(generator, "bernoulli_"), self.array.dtype, self.array.shape
    if not isinstance(p, CoreTensor):
        sample = replayed(in_memory_order(self.array, lambda walked: bernoulli_draw(gen, walked, p, d, "bernoulli_")))
        return fill(self, sample, "Bernoulli", p)
    order = walk_order(self.array)

    def draw(probabilities):  # torch walks p along with self, in self's memory order
        try:
            walked = None if order is None else np.broadcast_to(probabilities, shape).transpose(order[0])
        except ValueError:  # bernoulli_draw refuses the shape in torch's words
            walked = None
        if walked is None:
            return bernoulli_draw(gen, shape, probabilities, d, "bernoulli_")
        return bernoulli_draw(gen, walked.shape, walked, d, "bernoulli_").transpose(order[1])

    return fill(self, replayed(draw, p), "Bernoulli", p)


def random_(self, *args, generator=None, **kwargs):
    """Fill with integers from ``[from, to)``: ``random_()``, ``random_(to)`` or ``random_(from, to)``.

    Without ``to`` the range ends at the dtype's largest value (for floats, the largest
    exactly representable integer).
    """
    check_inplace(self, "random_")
    d = self.array.dtype
    values = named_args(args, kwargs, "random_", ("from", "to"))
    if len(args) == 1 and "to" not in kwargs:
        values = {"to": args[0]}  # random_(to)
    if "from" in values and "to" not in values:
        raise TypeError("random_() received an invalid combination of arguments: 'from' needs 'to'")
    low = int_arg(values.get("from", 0), "from", "random_")
    high = values.get("to")
    high = random_top(d) if high is None else int_arg(high, "to", "random_")
    check_int_range(low, high, d)
    gen = rng_of(generator, "random_")
    return fill(self, replayed(in_memory_order(self.array, lambda shape: integers(gen, low, high, shape, d))),
                "Random")


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with exponential samples of rate ``lambd``."""
    d = _float_self(self, "exponential_", _continuous("Exponential"), checked_when_empty=False)
    lambd = float_arg(lambd, "lambd", "exponential_")
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    if not self.array.size:
        return done(self)
    gen, shape = rng_of(generator, "exponential_"), self.array.shape

    out = direct(self)
    if out is not None:
        out[...] = exponential(gen, shape, lambd, d)
        return done(self)
    return fill(self, replayed(in_memory_order(self.array, lambda walked: exponential(gen, walked, lambd, d))),
                "Exponential")


def geometric_(self, p, *, generator=None):
    """Fill with the number of Bernoulli(``p``) trials up to and including the first success."""
    check_inplace(self, "geometric_")
    d = self.array.dtype
    if (d == np.bool_ or d in REAL) and self.array.size:
        raise NotImplementedError(f"\"geometric_cpu\" not implemented for '{type_name(d)}'")
    p = float_arg(p, "p", "geometric_")
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    gen, log_q = rng_of(generator, "geometric_"), math.log1p(-p)

    def draw(shape):  # torch: ceil(log(u) / log1p(-p)) in float64, u a 53-bit uniform
        return np.ceil(np.log(unit(gen, shape, np.dtype(np.float64))) / log_q).astype(d)

    return fill(self, replayed(in_memory_order(self.array, draw)), "Geometric")


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with Cauchy samples of location ``median`` and scale ``sigma``."""
    d = _float_self(self, "cauchy_", _continuous("Cauchy"))
    median, sigma = float_arg(median, "median", "cauchy_"), float_arg(sigma, "sigma", "cauchy_")
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    gen = rng_of(generator, "cauchy_")

    def draw(shape):  # torch: median + sigma * tan(pi * (u - 1/2)) in float64, u a 53-bit uniform
        angles = np.pi * (unit(gen, shape, np.dtype(np.float64)) - 0.5)
        # float64 results keep the last bit, where numpy's tan and the C library's (torch's) differ now and then
        c = np.fromiter(map(math.tan, angles.ravel().tolist()), np.float64, angles.size).reshape(shape) \
            if d == np.float64 else np.tan(angles)
        c *= sigma
        c += median
        return c.astype(np.float32).astype(d) if d in WORK else c.astype(d, copy=False)

    return fill(self, replayed(in_memory_order(self.array, draw)), "Cauchy")


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with ``exp(N(mean, std))`` samples."""
    d = _float_self(self, "log_normal_", _not_implemented("log_normal_cpu"), checked_when_empty=False)
    mean, std = float_arg(mean, "mean", "log_normal_"), float_arg(std, "std", "log_normal_")
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if not self.array.size:
        return done(self)
    gen, shape, work = rng_of(generator, "log_normal_"), self.array.shape, WORK.get(d, d)
    return fill(self, replayed(lambda: np.exp(normal_fill(gen, shape, work, mean, std)).astype(d, copy=False)),
                "LogNormal")


def _bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


TENSOR_METHODS = {"uniform_": uniform_, "normal_": normal_, "bernoulli_": bernoulli_, "random_": random_,
                  "exponential_": exponential_, "geometric_": geometric_, "cauchy_": cauchy_,
                  "log_normal_": log_normal_, "bernoulli": _bernoulli_method, "multinomial": _multinomial_method}
