"""Sizes that follow a dynamic axis through floor divisions (a strided convolution's output size read in Python).

``patches = conv(x)`` with stride 4 has ``(n - 4) // 4 + 1`` columns; a model that reads that size in Python
(``h, w = patches.shape[-2:]``) bakes it into constants.  The dynamic-axes pass (:mod:`._export_dynamic`) fits
integer formulas of the symbols from traces one and two apart, which a floor division hides.  Where the exporter
finds that out (its check at other sizes), it traces again at eight consecutive sizes per symbol and fits each
varying element with *terms* ``(n + r) // s + c`` (``s`` up to :data:`MAX_STRIDE`) in place of the sizes:
``a * (product of terms) + b`` or ``b + sum(a_i * term_i)``, integer coefficients reproducing every trace.
"""

__all__ = ["EXTENDED_STEPS", "MAX_STRIDE", "fit_floor", "floor_formula"]

MAX_STRIDE = 8
"""The largest divisor tried (eight consecutive sizes tell every one up to it apart)."""

EXTENDED_STEPS = tuple(range(1, MAX_STRIDE + 1))
"""Each symbol is traced again at its size plus each of these when floor divisions are looked for."""


def _term(n, term):
    stride, shift, offset = term
    return (n + shift) // stride + offset


def _fit_along(points):
    """The first term ``(stride, shift, offset)`` (``(n + shift) // stride + offset``) with ``v == a * term(n) + b``
    at every point (``a``, ``b`` integers; ``offset`` is ``b / a`` where that is an integer, so that products of
    terms fit: ``4 * (h - 1) * (w - 1)``)."""
    for stride in range(1, MAX_STRIDE + 1):
        for shift in range(stride):
            terms = [(n + shift) // stride for n, _ in points]
            pairs = {t: v for t, v in zip(terms, (v for _, v in points))}
            if len(pairs) < 2:
                continue
            (t0, v0), (t1, v1) = list(pairs.items())[:2]
            if (v1 - v0) % (t1 - t0):
                continue
            a = (v1 - v0) // (t1 - t0)
            b = v0 - a * t0
            if a and all(a * t + b == v for t, (_, v) in zip(terms, points)):
                return (stride, shift, b // a if b % a == 0 else 0)
    return None


def fit_floor(samples, symbols):
    """A formula of floor terms for one varying element (see the module docstring), or ``None``.

    ``samples``: ``[(sizes, value)]`` with the base trace first, then traces that each change one symbol.
    """
    (base_sizes, base_value), rest = samples[0], samples[1:]
    depends = [s for s in symbols if any(sz[s] != base_sizes[s] and v != base_value for sz, v in rest)]
    if not depends:
        return None
    terms = {}
    for s in depends:
        points = [(base_sizes[s], base_value)] + [(sz[s], v) for sz, v in rest if sz[s] != base_sizes[s]]
        term = _fit_along(points)
        if term is None:
            return None
        terms[s] = term

    def product(sizes):
        value = 1
        for s, term in terms.items():
            value *= _term(sizes[s], term)
        return value

    base_product = product(base_sizes)
    other = next(((sz, v) for sz, v in rest if product(sz) != base_product), None)
    if other is not None and (other[1] - base_value) % (product(other[0]) - base_product) == 0:
        a = (other[1] - base_value) // (product(other[0]) - base_product)
        b = base_value - a * base_product
        if all(a * product(sz) + b == v for sz, v in samples):
            return ("floor_prod", a, b, terms)
    coefficients = {}
    for s, term in terms.items():
        sz, v = next((sz, v) for sz, v in rest if _term(sz[s], term) != _term(base_sizes[s], term))
        step = _term(sz[s], term) - _term(base_sizes[s], term)
        if (v - base_value) % step:
            return None
        coefficients[s] = (v - base_value) // step
    b = base_value - sum(a * _term(base_sizes[s], terms[s]) for s, a in coefficients.items())
    if all(b + sum(a * _term(sz[s], terms[s]) for s, a in coefficients.items()) == v for sz, v in samples):
        return ("floor_sum", coefficients, b, terms)
    return None


def floor_formula(symbols, fitted, constant):
    """A ``[1]`` int64 value computing a formula of :func:`fit_floor` (``symbols``: the dynamic pass's
    ``_Symbols``; ``constant(ints)``: the name of an int64 ``[len(ints)]`` constant)."""
    kind, coefficients_or_a, b, terms = fitted

    def term(s):
        stride, shift, offset = terms[s]
        value = symbols.dim(s)
        if shift:
            value = symbols.op("Add", [value, constant([shift])])
        if stride != 1:  # both operands are positive sizes, where ONNX's integer Div (truncating) is the floor
            value = symbols.op("Div", [value, constant([stride])])
        return symbols.op("Add", [value, constant([offset])]) if offset else value

    if kind == "floor_prod":
        value = None
        for s in terms:
            value = term(s) if value is None else symbols.op("Mul", [value, term(s)])
        if coefficients_or_a != 1:
            value = symbols.op("Mul", [value, constant([coefficients_or_a])])
    else:
        value = None
        for s, a in coefficients_or_a.items():
            part = term(s) if a == 1 else symbols.op("Mul", [term(s), constant([a])])
            value = part if value is None else symbols.op("Add", [value, part])
    if b:
        value = symbols.op("Add", [value, constant([b])])
    return value
