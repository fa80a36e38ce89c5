"""Generator states are torch's CPU generator layout byte for byte, so they cross between vfw and real torch."""

import numpy as np
import pytest
import vfw.torch as vt

torch = pytest.importorskip("torch")


def _walk(lib):
    """States of a generator along a stream: fresh, mid-block, with a cached normal, at a block's end."""
    g = lib.Generator().manual_seed(3)
    states = [g.get_state()]
    lib.rand(7, generator=g)
    states.append(g.get_state())
    lib.randn(3, generator=g)
    states.append(g.get_state())
    lib.randn(1, dtype=lib.float64, generator=g)
    states.append(g.get_state())
    g.manual_seed(3)
    for _ in range(624):
        lib.randint(0, 10, (1,), generator=g)
    states.append(g.get_state())
    lib.manual_seed(5)
    lib.randperm(50)
    states += [lib.get_rng_state(), lib.Generator().get_state()]
    return [s.numpy().copy() for s in states]


def test_states_match_torch_byte_for_byte():
    for want, got in zip(_walk(torch), _walk(vt), strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape == (5056,)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("draws", [0, 7, 624, 700])
def test_a_torch_state_restores_into_vfw_and_back(draws):
    g = torch.Generator().manual_seed(11)
    if draws:
        torch.randint(0, 2**31 - 1, (draws,), generator=g, dtype=torch.int64)
    torch.randn(3, generator=g)  # leaves a cached normal sample in the state
    state = g.get_state()
    h = vt.Generator().set_state(vt.tensor(state.numpy()))
    assert h.initial_seed() == 11
    np.testing.assert_array_equal(h.get_state().numpy(), state.numpy())
    np.testing.assert_array_equal(vt.randn(5, generator=h).numpy(), torch.randn(5, generator=g).numpy())
    back = torch.Generator().set_state(torch.from_numpy(h.get_state().numpy()))
    np.testing.assert_array_equal(torch.rand(4, generator=back).numpy(), vt.rand(4, generator=h).numpy())


@pytest.mark.parametrize("size", [5048, 2528])
def test_a_state_of_the_wrong_size_names_both_sizes(size):
    with pytest.raises(RuntimeError, match="of size 5056 but found the input RNG state size to be"):
        torch.Generator().set_state(torch.zeros(size, dtype=torch.uint8))
    with pytest.raises(RuntimeError, match="of size 5056 but found the input RNG state size to be"):
        vt.Generator().set_state(vt.zeros(size, dtype=vt.uint8))
