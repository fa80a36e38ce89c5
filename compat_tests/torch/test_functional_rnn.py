"""torch.lstm / gru / rnn_tanh / rnn_relu (flat parameter lists, both argument forms) and the native nn operators
(torch.convolution, grid_sampler*, affine_grid_generator, in-place dropouts, embedding_renorm_) against real
torch 2.13."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real

HIDDEN, INPUT = 4, 3
MODES = {"lstm": (real.nn.LSTM, {}), "gru": (real.nn.GRU, {}), "rnn_tanh": (real.nn.RNN, {}),
         "rnn_relu": (real.nn.RNN, {"nonlinearity": "relu"})}


def _flat_weights(mode, num_layers, bidirectional, bias, proj_size=0):
    cls, kwargs = MODES[mode]
    if proj_size:
        kwargs = dict(kwargs, proj_size=proj_size)
    real.manual_seed(7)
    module = cls(INPUT, HIDDEN, num_layers=num_layers, bidirectional=bidirectional, bias=bias, **kwargs).double()
    return [p.detach().numpy().copy() for p in module._flat_weights]


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("layers,bidirectional,bias", [(1, False, True), (2, True, True), (2, False, False)])
def test_functional_recurrent_layers(mode, batch_first, layers, bidirectional, bias):
    directions = 2 if bidirectional else 1
    x = arrays((5, 2, INPUT), dtype="float64", seed=1)
    states = arrays((layers * directions, 5 if batch_first else 2, HIDDEN), (layers * directions,
                    5 if batch_first else 2, HIDDEN), dtype="float64", seed=2)
    params = _flat_weights(mode, layers, bidirectional, bias)

    def fn(t, x, h, c, params):
        hx = [h, c] if mode == "lstm" else h
        return getattr(t, mode)(x, hx, params, bias, layers, 0.0, False, bidirectional, batch_first)

    check_grad(fn, x, *states, params)


def test_lstm_with_projections():
    params = _flat_weights("lstm", 2, True, True, proj_size=2)
    x = arrays((4, 3, INPUT), dtype="float64", seed=3)
    h, c = arrays((4, 3, 2), (4, 3, HIDDEN), dtype="float64", seed=4)
    check_grad(lambda t, x, h, c, p: t.lstm(x, [h, c], p, True, 2, 0.0, False, True, False), x, h, c, params)


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_packed_data_form(mode):
    params = _flat_weights(mode, 1, True, True)
    batch_sizes = np.array([3, 2, 2, 1], np.int64)
    data = arrays((int(batch_sizes.sum()), INPUT), dtype="float64", seed=5)
    h, c = arrays((2, 3, HIDDEN), (2, 3, HIDDEN), dtype="float64", seed=6)

    def fn(t, data, h, c, params):
        hx = [h, c] if mode == "lstm" else h
        return getattr(t, mode)(data, t.from_numpy(batch_sizes), hx, params, True, 1, 0.0, False, True)

    check_grad(fn, data, h, c, params)


def test_recurrent_parameter_count_error():
    params = _flat_weights("gru", 1, False, True)
    x, h = arrays((3, 2, INPUT), (1, 2, HIDDEN), dtype="float64", seed=8)
    check(lambda t, x, h, p: t.gru(x, h, p[:3], True, 1, 0.0, False, False, False), x, h, params)


CONV_CASES = [
    ("conv1d", (2, 4, 9), (6, 2, 3), (6,), dict(stride=[2], padding=[1], dilation=[1], transposed=False,
                                                   output_padding=[0], groups=2)),
    ("conv2d", (2, 3, 7, 6), (4, 3, 3, 2), (4,), dict(stride=[1, 2], padding=[1, 0], dilation=[2, 1],
                                                        transposed=False, output_padding=[0, 0], groups=1)),
    ("conv3d_no_bias", (1, 2, 4, 5, 4), (3, 2, 2, 2, 2), None, dict(stride=[1, 1, 1], padding=[0, 1, 0],
                                                                     dilation=[1, 1, 1], transposed=False,
                                                                     output_padding=[0, 0, 0], groups=1)),
    ("transposed2d", (2, 4, 5, 5), (4, 3, 3, 3), (6,), dict(stride=[2, 2], padding=[1, 1], dilation=[1, 1],
                                                              transposed=True, output_padding=[1, 0], groups=2)),
]


@pytest.mark.parametrize("case", CONV_CASES, ids=[c[0] for c in CONV_CASES])
def test_convolution(case):
    _, x_shape, w_shape, b_shape, kw = case
    x, w = arrays(x_shape, w_shape, seed=9)
    b = None if b_shape is None else arrays(b_shape, seed=10)
    order = ("stride", "padding", "dilation", "transposed", "output_padding", "groups")
    check_grad(lambda t, x, w, b: t.convolution(x, w, b, *[kw[k] for k in order]), x, w, b, rtol=1e-4, atol=1e-5)


def test_convolution_rank_error():
    x, w = arrays((2, 3, 7), (4, 3, 3, 3), seed=11)
    check(lambda t, x, w: t.convolution(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1), x, w)


@pytest.mark.parametrize("interpolation", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sampler_2d(interpolation, padding, align_corners):
    x = arrays((2, 3, 5, 4), seed=12)
    grid = arrays((2, 3, 4, 2), seed=13, low=-1.2, high=1.2)
    for name in ("grid_sampler", "grid_sampler_2d"):
        check(lambda t, x, g, name=name: getattr(t, name)(x, g, interpolation, padding, align_corners), x, grid,
              rtol=1e-4, atol=1e-5)
    if interpolation == 0:
        check_grad(lambda t, x, g: t.grid_sampler_2d(x, g, interpolation, padding, align_corners), x, grid,
                   rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("interpolation", [0, 1])
def test_grid_sampler_3d(interpolation):
    x = arrays((1, 2, 3, 4, 5), seed=14)
    grid = arrays((1, 2, 3, 2, 3), seed=15, low=-1.1, high=1.1)
    for name in ("grid_sampler", "grid_sampler_3d"):
        check(lambda t, x, g, name=name: getattr(t, name)(x, g, interpolation, 1, False), x, grid, rtol=1e-4,
              atol=1e-5)
    check(lambda t, x, g: t.grid_sampler_3d(x[0], g[0], interpolation, 1, False), x, grid)


@pytest.mark.parametrize("size,align", [([2, 3, 4, 5], False), ([2, 3, 4, 5], True), ([2, 1, 3, 4, 2], False)])
def test_affine_grid_generator(size, align):
    theta = arrays((2, len(size) - 2, len(size) - 1), seed=16)
    check_grad(lambda t, th: t.affine_grid_generator(th, size, align), theta)


@pytest.mark.parametrize("name", ["dropout_", "alpha_dropout_", "feature_dropout_", "feature_alpha_dropout_"])
@pytest.mark.parametrize("train", [False, True])
def test_inplace_dropouts(name, train):
    x = arrays((4, 6, 5), seed=17)

    def fn(t, x):
        t.manual_seed(3)
        y = x.clone()
        out = getattr(t, name)(y, 0.3, train)
        return out is y, y

    check(fn, x)


def test_embedding_renorm_():
    weight = arrays((6, 3), seed=18, low=-3, high=3)

    def fn(t, w):
        out = t.embedding_renorm_(w, t.tensor([0, 2, 2, 5]), 1.5, 2.0)
        return out is w, w

    check(fn, weight)
    check(lambda t, w: t.embedding_renorm_(w, t.tensor([[1, 3]]), 1.0, 1.0), weight)
    check(lambda t, w: t.embedding_renorm_(w, t.tensor([0.0]), 1.0, 2.0), weight)
    check(lambda t, w: t.embedding_renorm_(w, t.tensor([9]), 1.0, 2.0), weight)
