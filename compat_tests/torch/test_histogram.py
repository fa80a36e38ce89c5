"""torch.histogram / torch.histogramdd against real torch 2.13."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check

VALUES = np.array([1.0, 2, 1, 2.5, 4, -1, 0.25, 2.75], np.float32)

CASES = [
    ("bins", lambda t, x: t.histogram(x, 4)),
    ("range", lambda t, x: t.histogram(x, 4, range=(0.0, 3.0))),
    ("edges_weight_density", lambda t, x: t.histogram(x, t.tensor([0.0, 1, 3, 5]), weight=x.abs(), density=True)),
    ("density", lambda t, x: t.histogram(x, 3, density=True)),
    ("method", lambda t, x: x.histogram(2)),
    ("float64_2d", lambda t, x: t.histogram(x.double().reshape(2, 4), 5)),
    ("constant", lambda t, x: t.histogram(x * 0 + 1, 2)),
    ("empty", lambda t, x: t.histogram(x[:0], 2)),
    ("many_bins", lambda t, x: t.histogram(t.linspace(-3, 3, 200) * x[0], 37)),
    ("fields", lambda t, x: (lambda r: (r.hist, r.bin_edges))(t.histogram(x, 3))),
    ("long_input", lambda t, x: t.histogram(x.long(), 2)),
    ("min_above_max", lambda t, x: t.histogram(x, 2, range=(3.0, 1.0))),
    ("negative_bins", lambda t, x: t.histogram(x, -1)),
    ("dd_bins", lambda t, x: t.histogramdd(x.reshape(4, 2), [2, 3])),
    ("dd_range", lambda t, x: t.histogramdd(x.reshape(4, 2), 2, range=[-1.0, 1, -2, 2])),
    ("dd_edges", lambda t, x: t.histogramdd(x.reshape(4, 2), [t.tensor([-1.0, 0, 1]), t.tensor([-3.0, 3])])),
    ("dd_weight_density", lambda t, x: t.histogramdd(x.reshape(2, 2, 2), [3, 2],
                                                     weight=x.reshape(2, 2, 2)[..., 0].abs(), density=True)),
    ("dd_three_dims", lambda t, x: t.histogramdd(t.cat([x, x.flip(0), x * 2]).reshape(8, 3), 3)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_histogram(name, fn):
    check(fn, VALUES)


@pytest.mark.parametrize("seed", range(4))
def test_random_values_and_edges(seed):
    x = arrays((300,), seed=seed, low=-5.0, high=5.0)
    check(lambda t, v: t.histogram(v, 17), x)
    check(lambda t, v: t.histogram(v, 9, range=(-3.3, 2.1)), x)
    check(lambda t, v: t.histogramdd(v.reshape(100, 3), [4, 5, 6]), x)
