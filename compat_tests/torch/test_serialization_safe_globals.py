"""torch.serialization's allowlist (add_safe_globals, safe_globals, get_unsafe_globals_in_checkpoint) and
torch.load of checkpoints holding user classes, against real torch 2.13 (files written by either side)."""

import io
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402


class Point:
    """A user class pickled by default (NEWOBJ + BUILD of its __dict__)."""

    def __init__(self, x, label):
        self.x, self.label = x, label


class Stateful:
    """A user class with its own __setstate__ (BUILD calls it)."""

    def __init__(self, value):
        self.value = value

    def __getstate__(self):
        return {"packed": self.value}

    def __setstate__(self, state):
        self.value = state["packed"]


class Reduced:
    """A user class rebuilt by calling it (REDUCE)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __reduce__(self):
        return Reduced, (self.a, self.b)


@pytest.fixture(autouse=True)
def restore_allowlists():
    saved_real, saved_ours = torch.serialization.get_safe_globals(), vt.serialization.get_safe_globals()
    torch.serialization.clear_safe_globals()
    vt.serialization.clear_safe_globals()
    yield
    torch.serialization.clear_safe_globals()
    torch.serialization.add_safe_globals(saved_real)
    vt.serialization.clear_safe_globals()
    vt.serialization.add_safe_globals(saved_ours)


def _checkpoint(lib, obj):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    return buffer.getvalue()


def _payload(lib):
    return {"point": Point(lib.arange(3.0), "p"), "state": Stateful(lib.ones(2, dtype=lib.int64)),
            "reduced": Reduced(2, "b"), "n": 7}


def _check_payload(loaded):
    assert set(loaded) == {"point", "state", "reduced", "n"}
    np.testing.assert_array_equal(np.asarray(loaded["point"].x.tolist()), [0.0, 1.0, 2.0])
    assert loaded["point"].label == "p" and type(loaded["point"]) is Point
    assert loaded["state"].value.tolist() == [1, 1] and type(loaded["state"]) is Stateful
    assert (loaded["reduced"].a, loaded["reduced"].b) == (2, "b") and loaded["n"] == 7


def _unsupported_global_detail(message):
    return message[message.index("Unsupported global"):].split("\n")[0]


@pytest.mark.parametrize("writer", ["torch", "vfw"])
def test_user_class_refused_with_torchs_advice(writer):
    data = _checkpoint(torch if writer == "torch" else vt, {"point": Point(1, "a")})
    with pytest.raises(pickle.UnpicklingError) as real_error:
        torch.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as our_error:
        vt.load(io.BytesIO(data))
    assert "Weights only load failed" in str(our_error.value)
    assert _unsupported_global_detail(str(our_error.value)) == _unsupported_global_detail(str(real_error.value))
    assert "add_safe_globals" in _unsupported_global_detail(str(our_error.value))


@pytest.mark.parametrize("writer", ["torch", "vfw"])
def test_listed_classes_load_on_both_sides(writer):
    data = _checkpoint(torch if writer == "torch" else vt, _payload(torch if writer == "torch" else vt))
    torch.serialization.add_safe_globals([Point, Stateful, Reduced])
    vt.serialization.add_safe_globals([Point, Stateful, Reduced])
    _check_payload(torch.load(io.BytesIO(data)))
    loaded = vt.load(io.BytesIO(data))
    _check_payload(loaded)
    assert isinstance(loaded["point"].x, vt.Tensor)


def test_unsafe_globals_in_checkpoint_match_torch(tmp_path):
    path = tmp_path / "ckpt.pt"
    torch.save(_payload(torch), path)
    want = torch.serialization.get_unsafe_globals_in_checkpoint(path)
    assert sorted(vt.serialization.get_unsafe_globals_in_checkpoint(path)) == sorted(want)
    assert len(want) == 3
    torch.serialization.add_safe_globals([Point])
    vt.serialization.add_safe_globals([Point])
    with open(path, "rb") as f:
        assert sorted(vt.serialization.get_unsafe_globals_in_checkpoint(f)) == sorted(
            torch.serialization.get_unsafe_globals_in_checkpoint(path))
    state_dict_file = tmp_path / "sd.pt"
    torch.save(torch.nn.Linear(2, 3).state_dict(), state_dict_file)
    assert vt.serialization.get_unsafe_globals_in_checkpoint(state_dict_file) == []


def test_safe_globals_context_manager_and_named_entries():
    data = _checkpoint(torch, {"point": Point(1, "a")})
    named = [(Point, f"{Point.__module__}.Point")]
    for lib in (torch, vt):
        with lib.serialization.safe_globals(named) as entered:
            assert entered is None
            assert lib.serialization.get_safe_globals() == named
            assert lib.load(io.BytesIO(data))["point"].label == "a"
        assert lib.serialization.get_safe_globals() == []
        with pytest.raises(pickle.UnpicklingError):
            lib.load(io.BytesIO(data))


def test_entry_named_for_another_path_is_used_under_that_name():
    # a class saved under a name that no longer exists (renamed since): the pair maps that name to Point
    moved = type("Pnt_0", (), {"__module__": __name__})
    globals()["Pnt_0"] = moved
    try:
        instance = moved()
        instance.x, instance.label = 1, "a"
        data = _checkpoint(torch, {"point": instance})
    finally:
        del globals()["Pnt_0"]
    for lib in (torch, vt):
        lib.serialization.add_safe_globals([(Point, f"{Point.__module__}.Pnt_0")])
        assert type(lib.load(io.BytesIO(data))["point"]) is Point


def test_allowlist_bookkeeping_matches_torch():
    for lib in (torch, vt):
        lib.serialization.add_safe_globals([Point, Stateful])
        lib.serialization.add_safe_globals([Point])
    assert set(vt.serialization.get_safe_globals()) == set(torch.serialization.get_safe_globals())
    assert vt.serialization.DEFAULT_PROTOCOL == torch.serialization.DEFAULT_PROTOCOL
    with pytest.raises(TypeError):
        torch.serialization.add_safe_globals(Point)
    with pytest.raises(TypeError):
        vt.serialization.add_safe_globals(Point)
    for lib in (torch, vt):
        lib.serialization.clear_safe_globals()
        assert lib.serialization.get_safe_globals() == []


def test_listing_a_class_does_not_allow_other_callables():
    import os
    payload = pickle.dumps({"point": Point(1, "a"), "run": Reduced(os.getpid(), "x")}, protocol=2)
    payload = payload.replace(b"Reduced", b"getpid\x00"[:7])  # a REDUCE naming an unlisted callable
    vt.serialization.add_safe_globals([Point])
    from vfw.frontends.torch.serialization._unpickler import unpickle
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        unpickle(payload, persistent_load=None)


_module_lambda = lambda: 0  # noqa: E731  (a module-level lambda: pickle cannot find it by name)


def test_save_pickles_what_torch_pickles():
    for lib in (torch, vt):
        with pytest.raises(pickle.PicklingError, match="attribute lookup <lambda>"):
            lib.save({"f": _module_lambda}, io.BytesIO())
        with pytest.raises(AttributeError, match="Can't pickle local object"):
            lib.save({"f": lambda: 0}, io.BytesIO())
        with pytest.raises(TypeError):
            lib.save({"file": io.TextIOWrapper(io.BytesIO())}, io.BytesIO())
    data = _checkpoint(vt, {"cls": Point, "fn": _checkpoint})
    assert sorted(vt.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))) == sorted(
        torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))
    vt.serialization.add_safe_globals([Point, _checkpoint])
    torch.serialization.add_safe_globals([Point, _checkpoint])
    assert vt.load(io.BytesIO(data)) == torch.load(io.BytesIO(data)) == {"cls": Point, "fn": _checkpoint}
