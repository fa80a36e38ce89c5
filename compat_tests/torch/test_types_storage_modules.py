"""torch.types and torch.storage against real torch 2.13: the public names and what the aliases accept."""

import typing

import pytest

torch = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402


def test_types_public_names():
    assert sorted(vt.types.__all__) == sorted(torch.types.__all__)
    for name in ["_bool", "_int", "_float", "_complex", "_str", "_bytes", "_Number", "_size", "_dtype", "_device",
                 "_layout", "Size", "Tensor"]:
        assert hasattr(vt.types, name), name
    assert vt.types._dtype is vt.dtype and vt.types._device is vt.device and vt.types.Size is vt.Size
    assert vt.types._Number == torch.types._Number


@pytest.mark.parametrize("alias,value,accepted", [
    ("Number", 3, True), ("Number", 2.5, True), ("Number", True, True), ("Number", "3", False),
    ("Device", "cpu", True), ("Device", 0, True), ("Device", None, True), ("Device", 1.5, False),
    ("_size", (2, 3), True), ("_size", [2, 3], True), ("_size", 3, False),
])
def test_aliases_accept_what_torchs_accept(alias, value, accepted):
    def accepts(module):
        kinds = typing.get_args(getattr(module, alias))
        return isinstance(value, tuple(typing.get_origin(k) or (type(None) if k is None else k) for k in kinds))

    assert accepts(torch.types) is accepted
    assert accepts(vt.types) is accepted


def test_storage_module():
    assert sorted(vt.storage.__all__) == sorted(torch.storage.__all__)
    storage = vt.arange(4, dtype=vt.int32).untyped_storage()
    real = torch.arange(4, dtype=torch.int32).untyped_storage()
    assert isinstance(storage, vt.storage.UntypedStorage) and isinstance(real, torch.storage.UntypedStorage)
    assert storage.nbytes() == real.nbytes() and list(storage) == list(real)
    assert vt.storage.UntypedStorage is vt.UntypedStorage and vt.storage.TypedStorage is vt.TypedStorage
    assert vt.storage.Storage is vt.types.Storage
    assert isinstance(storage, vt.types.Storage) is isinstance(real, torch.types.Storage)
    assert vt.storage.UntypedStorage.__module__ == torch.storage.UntypedStorage.__module__
