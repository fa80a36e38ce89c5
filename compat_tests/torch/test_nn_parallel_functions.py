"""torch.nn.parallel's functional pieces on one CPU device and convert_conv*_weight_memory_format.

Real torch refuses scatter/gather/parallel_apply without a GPU, so the oracle is what they compute per replica:
real torch's ``chunk`` (scatter), ``cat`` (gather) and module calls, with the same weights.
"""

import numpy as np
import pytest
import vfw.torch as vtorch

torch = pytest.importorskip("torch")


def _pair_linear():
    real = torch.nn.Linear(3, 2)
    mine = vtorch.nn.Linear(3, 2)
    mine.load_state_dict({k: vtorch.tensor(v.detach().numpy()) for k, v in real.state_dict().items()})
    return real, mine


def test_scatter_and_gather_structures():
    x = np.arange(15.0).reshape(5, 3)
    pieces = vtorch.nn.parallel.scatter((vtorch.tensor(x), {"k": vtorch.tensor(x), "n": 7}, [vtorch.tensor(x)]),
                                        [0, 1])
    expected = torch.tensor(x).chunk(2, 0)
    assert len(pieces) == 2
    for piece, chunk in zip(pieces, expected):
        assert isinstance(piece, tuple) and piece[1]["n"] == 7
        for got in (piece[0], piece[1]["k"], piece[2][0]):
            np.testing.assert_array_equal(got.numpy(), chunk.numpy())
    gathered = vtorch.nn.parallel.gather([(p[0], {"k": p[1]["k"]}, None) for p in pieces], "cpu")
    np.testing.assert_array_equal(gathered[0].numpy(), torch.cat(expected).numpy())
    np.testing.assert_array_equal(gathered[1]["k"].numpy(), x)
    assert gathered[2] is None
    inputs, kwargs = vtorch.nn.parallel.scatter_gather.scatter_kwargs((vtorch.tensor(x),), {"m": 1}, [0, 1, 2])
    assert [len(i[0]) for i in inputs] == [t.shape[0] for t in torch.tensor(x).chunk(3)] and kwargs[2] == {"m": 1}


def test_parallel_apply_replicate_and_data_parallel_with_gradients():
    real, mine = _pair_linear()
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    replicas = vtorch.nn.parallel.replicate(mine, [0, 1])
    outputs = vtorch.nn.parallel.parallel_apply(replicas, [vtorch.tensor(x[:2]), (vtorch.tensor(x[2:]),)])
    expected = [real(torch.tensor(x[:2])), real(torch.tensor(x[2:]))]
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)
    with pytest.raises(AssertionError, match="The number of modules 1 is not equal to the number of inputs 2"):
        vtorch.nn.parallel.parallel_apply([mine], [vtorch.tensor(x), vtorch.tensor(x)])
    out = vtorch.nn.parallel.data_parallel(mine, vtorch.tensor(x), device_ids=[0])
    out.sum().backward()
    real(torch.tensor(x)).sum().backward()
    np.testing.assert_allclose(mine.weight.grad.numpy(), real.weight.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dims", [2, 3])
def test_convert_conv_weight_memory_format(dims):
    def model(module):
        conv, transposed = getattr(module.nn, f"Conv{dims}d"), getattr(module.nn, f"ConvTranspose{dims}d")
        return module.nn.Sequential(conv(3, 4, 3), module.nn.Sequential(transposed(4, 2, 3)), module.nn.Linear(2, 2))

    fmt = "channels_last" if dims == 2 else "channels_last_3d"
    convert = f"convert_conv{dims}d_weight_memory_format"
    real, mine = model(torch), model(vtorch)
    assert getattr(torch.nn.utils, convert)(real, getattr(torch, fmt)) is real
    assert getattr(vtorch.nn.utils, convert)(mine, getattr(vtorch, fmt)) is mine
    for r, m in zip(real.parameters(), mine.parameters()):
        assert m.stride() == r.stride() and isinstance(m, vtorch.nn.Parameter)
