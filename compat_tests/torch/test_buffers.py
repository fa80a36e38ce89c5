"""torch.frombuffer, DLPack exchange and torch.binomial against real torch 2.13 (and numpy)."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import check, real, vt

RAW = b"\x00\x00\x80?\x00\x00\x00@\x01\x02\x03\x04"


@pytest.mark.parametrize("kwargs", [
    {"dtype": "float32"}, {"dtype": "int8", "count": 3, "offset": 2}, {"dtype": "int16", "offset": 4},
    {"dtype": "float32", "offset": 13}, {"dtype": "float32", "count": 4}, {"dtype": "float32", "offset": 2},
    {"dtype": "float32", "count": 0}, {"dtype": "uint8", "count": -1, "offset": 11},
])
def test_frombuffer(kwargs):
    def run(torch):
        options = dict(kwargs, dtype=getattr(torch, kwargs["dtype"]))
        return torch.frombuffer(bytearray(RAW), **options)

    check(run)


def test_frombuffer_shares_memory_and_warns_for_read_only():
    for torch in (real, vt):
        data = bytearray(RAW)
        t = torch.frombuffer(data, dtype=torch.float32, count=2)
        t[0] = 5.0
        assert data[:4] == np.float32(5.0).tobytes()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert torch.frombuffer(RAW, dtype=torch.float32, count=1).tolist() == [1.0]
        assert any("not writable" in str(w.message) for w in caught)
        with pytest.raises(ValueError):
            torch.frombuffer(bytearray(), dtype=torch.float32)


def test_dlpack_round_trips_share_memory():
    source = np.arange(6.0).reshape(2, 3)
    t = vt.from_dlpack(source)
    t[0, 0] = 7.0
    assert source[0, 0] == 7.0 and t.dtype == vt.float64
    back = np.from_dlpack(t)
    assert back.base is not None and back[0, 0] == 7.0
    real_tensor = real.from_dlpack(vt.arange(3))  # real torch imports a vfw tensor, and the other way round
    assert real_tensor.tolist() == [0, 1, 2]
    assert vt.from_dlpack(real.arange(4.0)).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert vt.utils.dlpack.from_dlpack(vt.utils.dlpack.to_dlpack(vt.ones(2))).tolist() == [1.0, 1.0]
    assert real.utils.dlpack.from_dlpack(vt.to_dlpack(vt.ones(2, dtype=vt.int32))).dtype == real.int32
    for torch in (real, vt):
        with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
            torch.ones(2, requires_grad=True).__dlpack__()


@pytest.mark.parametrize("call", [
    lambda t: t.binomial(t.tensor([10.0, 5.0]).long(), t.tensor([0.5, 0.1]).long()),
    lambda t: t.binomial(t.tensor([10.0, 5.0]), t.tensor([0.5, 0.1]).double()),
    lambda t: t.binomial(t.tensor([10.0, 5.0, 1.0, 2.0]), t.tensor([0.5, 0.1])),
    lambda t: t.binomial(t.tensor([10.0, 0.0, 3.0]), t.tensor([0.0, 0.5, 1.0])),
    lambda t: t.binomial(t.tensor([4.0]), t.tensor([0.5])).shape,
])
def test_binomial_edges_and_errors(call):
    check(call)


def test_binomial_distribution():
    vt.manual_seed(3)
    draws = vt.binomial(vt.full((20000,), 12.0), vt.full((20000,), 0.3))
    values = draws.numpy()
    assert draws.dtype == vt.float32 and values.min() >= 0 and values.max() <= 12
    assert np.all(values == np.round(values))
    np.testing.assert_allclose(values.mean(), 3.6, atol=0.05)
    np.testing.assert_allclose(values.var(), 12 * 0.3 * 0.7, rtol=0.05)
    vt.manual_seed(3)
    np.testing.assert_array_equal(vt.binomial(vt.full((20000,), 12.0), vt.full((20000,), 0.3)).numpy(), values)
