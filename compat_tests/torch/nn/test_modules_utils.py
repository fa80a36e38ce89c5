"""torch.nn.modules.utils.consume_prefix_in_state_dict_if_present against real torch."""

from collections import OrderedDict

import pytest

from compat_tests.torch.harness import real, vt


def _state_dict_of_wrapper():
    state = OrderedDict([("module.0.weight", 1), ("step", 2), ("module.0.bias", 3), ("xmodule.w", 4)])
    state._metadata = OrderedDict([("", {"version": 1}), ("module", {"version": 2}), ("module.0", {"version": 3}),
                                   ("other", {"version": 4})])
    return state


@pytest.mark.parametrize("prefix", ["module.", "a.b.", "module", "zz."])
def test_consume_prefix_in_state_dict_if_present(prefix):
    def run(torch):
        state = _state_dict_of_wrapper()
        state._metadata["ab"] = {"version": 5}
        state["a.b.c"] = 6
        result = torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(state, prefix)
        plain = {"module.x": 1, "y": 2}  # no _metadata
        torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(plain, prefix)
        return result, list(state.items()), list(state._metadata.items()), list(plain.items())

    assert run(vt) == run(real)


def test_loads_a_ddp_checkpoint_into_the_bare_model():
    model = vt.nn.Sequential(vt.nn.Linear(2, 2), vt.nn.BatchNorm1d(2))
    state = OrderedDict(("module." + k, v) for k, v in model.state_dict().items())
    metadata = model.state_dict()._metadata
    state._metadata = OrderedDict(("module" + ("." + k if k else ""), v) for k, v in metadata.items())
    vt.nn.modules.utils.consume_prefix_in_state_dict_if_present(state, "module.")
    assert list(state) == list(model.state_dict()) and list(state._metadata) == list(model.state_dict()._metadata)
    assert vt.nn.modules.utils.__all__ == real.nn.modules.utils.__all__
    vt.nn.Sequential(vt.nn.Linear(2, 2), vt.nn.BatchNorm1d(2)).load_state_dict(state)
