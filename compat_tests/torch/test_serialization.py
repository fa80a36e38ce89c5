"""torch.save / torch.load: vfw reads what real torch 2.13 writes, and real torch reads what vfw writes.

Every tensor is compared bit for bit (dtype, shape, strides, storage offset and bytes), and memory
sharing is checked on both sides. Malicious checkpoints must be refused without running code.
"""

import collections
import io
import math
import os
import pathlib
import pickle
import struct
import warnings
import zipfile

import numpy as np
import pytest

real = pytest.importorskip("torch")
import vfw.torch as vt  # noqa: E402

from vfw.frontends.torch import serialization  # noqa: E402
from vfw.frontends.torch.nn.parameter import Parameter  # noqa: E402
from vfw.frontends.torch.serialization import _archive  # noqa: E402

DTYPES = ["float32", "float64", "float16", "bfloat16", "bool", "int8", "uint8", "int16", "int32", "int64", "uint16",
          "uint32", "uint64"]


# -- helpers -------------------------------------------------------------------------------------
def torch_save(obj, **kwargs):
    buf = io.BytesIO()
    real.save(obj, buf, **kwargs)
    return buf.getvalue()


def vfw_save(obj, **kwargs):
    buf = io.BytesIO()
    serialization.save(obj, buf, **kwargs)
    return buf.getvalue()


def torch_load(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about pickle protocols other than 2
        return real.load(io.BytesIO(data), weights_only=True)


def vfw_load(data, **kwargs):
    return serialization.load(io.BytesIO(data), **kwargs)


def torch_bytes(t):
    return t.detach().contiguous().reshape(-1).view(real.uint8).numpy().tobytes()


def assert_same_tree(got, want, path="obj"):
    """``got`` (vfw or torch) mirrors ``want`` (the other library): types, keys, values, tensors bitwise."""
    if isinstance(want, (real.Tensor, vt.Tensor)):
        assert isinstance(got, (real.Tensor, vt.Tensor)), f"{path}: {type(got).__name__} is not a tensor"
        assert isinstance(got, (real.nn.Parameter, Parameter)) == isinstance(want, (real.nn.Parameter, Parameter)), \
            f"{path}: Parameter-ness differs"
        assert str(got.dtype) == str(want.dtype), f"{path}: dtype {got.dtype} != {want.dtype}"
        assert tuple(got.shape) == tuple(want.shape), f"{path}: shape {tuple(got.shape)} != {tuple(want.shape)}"
        assert tuple(got.stride()) == tuple(want.stride()), f"{path}: strides differ"
        assert got.storage_offset() == want.storage_offset(), f"{path}: storage offsets differ"
        assert got.requires_grad == want.requires_grad, f"{path}: requires_grad differs"
        to_bytes = [torch_bytes(t) if isinstance(t, real.Tensor) else np.ascontiguousarray(t.array).tobytes()
                    for t in (got, want)]
        assert to_bytes[0] == to_bytes[1], f"{path}: values differ"
        want_attrs = {k: v for k, v in vars(want).items() if not k.startswith("_")}
        got_attrs = {k: v for k, v in vars(got).items() if not k.startswith("_")}
        assert_same_tree(got_attrs, want_attrs, f"{path}.__dict__")
    elif isinstance(want, (real.Size, vt.Size)):
        assert isinstance(got, (real.Size, vt.Size)) and tuple(got) == tuple(want), path
    elif isinstance(want, (real.dtype, vt.dtype, real.device, vt.device)):
        assert type(got).__name__ == type(want).__name__ and str(got) == str(want), path
    elif isinstance(want, dict):
        assert type(got) is type(want), f"{path}: {type(got).__name__} != {type(want).__name__}"
        assert list(got) == list(want), f"{path}: keys {list(got)} != {list(want)}"
        for k in want:
            assert_same_tree(got[k], want[k], f"{path}[{k!r}]")
        if hasattr(want, "_metadata"):
            assert_same_tree(got._metadata, want._metadata, f"{path}._metadata")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), f"{path}: {type(got).__name__}/{len(got)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_tree(g, w, f"{path}[{i}]")
    elif isinstance(want, float) and math.isnan(want):
        assert type(got) is float and math.isnan(got), path
    else:
        assert type(got) is type(want) and got == want, f"{path}: {got!r} != {want!r}"


def shares_memory(a, b):
    return np.shares_memory(a.array, b.array)


def torch_tensor_of(dtype, shape=(2, 3), seed=0):
    values = np.random.default_rng(seed).uniform(-100, 100, shape)
    t = real.from_numpy(values)
    return (t > 0) if dtype == "bool" else t.to(getattr(real, dtype))


def vfw_tensor_of(dtype, shape=(2, 3), seed=0):
    values = np.random.default_rng(seed).uniform(-100, 100, shape)
    t = vt.from_numpy(values)
    return (t > 0) if dtype == "bool" else t.to(getattr(vt, dtype))


def zip_with(records, prefix="archive"):
    """A zip holding ``records`` (name -> bytes) under ``prefix/``, written by Python's zipfile."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name, data in records.items():
            z.writestr(f"{prefix}/{name}", data)
    return buf.getvalue()


def records_of(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {name.split("/", 1)[1]: z.read(name) for name in z.namelist()}


# -- real torch saves, vfw loads -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 3), (2, 1, 4)])
def test_torch_saves_every_dtype_and_shape(dtype, shape):
    t = torch_tensor_of(dtype, shape)
    got = vfw_load(torch_save(t))
    assert type(got) is vt.Tensor
    assert_same_tree(got, t)


def test_torch_views_share_one_storage_after_loading():
    base = real.arange(24.0).reshape(4, 6)
    views = [base, base.t(), base[1:, ::2], base[2], base[:, 3], base.narrow(1, 2, 3), base.reshape(-1)[5:]]
    got = vfw_load(torch_save(views))
    assert_same_tree(got, views)
    assert all(shares_memory(got[0], v) for v in got[1:])
    got[0][2, 4] = -1.0  # a write through one tensor shows in the others, as in torch
    assert got[3][4].item() == -1.0 and got[1][4, 2].item() == -1.0 and got[2][1, 2].item() == -1.0


def test_torch_expanded_and_separate_storages():
    a, b = real.ones(3), real.zeros(3)
    objs = [a.expand(2, 3), b, a]
    got = vfw_load(torch_save(objs))
    assert_same_tree(got, objs)
    assert shares_memory(got[0], got[2]) and not shares_memory(got[1], got[2])


def test_torch_parameters_and_tensor_attributes():
    p = real.nn.Parameter(real.randn(2, 3))
    frozen = real.nn.Parameter(real.arange(3), requires_grad=False)
    tagged = real.nn.Parameter(real.ones(2))
    tagged.note = "kept"
    t = real.ones(2)
    t.scale = 3
    leaf = real.ones(2, requires_grad=True)
    objs = [p, frozen, tagged, t, leaf, p]
    got = vfw_load(torch_save(objs))
    assert_same_tree(got, objs)
    assert isinstance(got[0], vt.nn.Parameter) and got[0].requires_grad and got[0].grad_node is None
    assert not got[1].requires_grad
    assert got[2].note == "kept" and got[3].scale == 3
    assert got[5] is got[0]  # one object saved twice is one object loaded


def test_torch_module_state_dict_with_metadata_loads_into_vfw_module():
    real.manual_seed(0)
    model = real.nn.Sequential(real.nn.Linear(3, 4), real.nn.BatchNorm1d(4), real.nn.Linear(4, 2))
    model.train()
    model(real.randn(8, 3))  # running statistics and num_batches_tracked move
    state = model.state_dict()
    got = vfw_load(torch_save(state))
    assert type(got) is collections.OrderedDict
    assert_same_tree(got, state)
    linear = vt.nn.Linear(3, 4)
    linear.load_state_dict({k[2:]: v for k, v in got.items() if k.startswith("0.")})
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    with real.no_grad():
        want = model[0](real.from_numpy(x)).numpy()
    np.testing.assert_allclose(linear(vt.from_numpy(x)).detach().numpy(), want, rtol=1e-6, atol=1e-6)


def test_torch_optimizer_state_dict():
    real.manual_seed(0)
    model = real.nn.Linear(3, 2)
    for opt in (real.optim.Adam(model.parameters(), lr=0.1, betas=(0.8, 0.9)),
                real.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)):
        model(real.randn(4, 3)).pow(2).sum().backward()
        opt.step()
        state = opt.state_dict()
        assert_same_tree(vfw_load(torch_save(state)), state)


def test_torch_python_values():
    objs = {"size": real.Size([2, 3]), "dtype": real.bfloat16, "dtypes": [real.float32, real.int64, real.bool],
            "device": real.device("cpu"), "bytes": b"\x00\xffab", "bytearray": bytearray(b"xy"), "set": {1, 2},
            "complex": 1.5 - 2j, "none": None, "true": True, "big": 2 ** 70, "neg": -(2 ** 40), "inf": -math.inf,
            "nan": math.nan, "text": "ünï €", "nested": (1, [2.5, (3, "x")], {"k": None}),
            "counter": collections.Counter(a=2), 7: "int key", ("t", 1): "tuple key"}
    assert_same_tree(vfw_load(torch_save(objs)), objs)


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_torch_pickle_protocols(protocol):
    base = real.arange(6.0)
    objs = {"a": base, "b": base[2:], "bytes": b"zz", "set": {3}, "p": real.nn.Parameter(real.ones(1))}
    got = vfw_load(torch_save(objs, pickle_protocol=protocol))
    assert_same_tree(got, objs)
    assert shares_memory(got["a"], got["b"])


def test_torch_legacy_format():
    base = real.arange(12, dtype=real.float64).reshape(3, 4)
    objs = {"a": base, "b": base[1], "p": real.nn.Parameter(real.ones(2)), "u16": real.ones(3, dtype=real.uint16),
            "sd": real.nn.Linear(2, 2).state_dict()}
    got = vfw_load(torch_save(objs, _use_new_zipfile_serialization=False))
    assert_same_tree(got, objs)
    assert shares_memory(got["a"], got["b"])


def test_python_zipfile_layout_and_big_endian_files():
    """A checkpoint re-zipped by another tool (no alignment) whose byteorder record says 'big'."""
    t = real.tensor([1.5, -2.0, 3.25], dtype=real.float64)
    i = real.tensor([1, -2, 300], dtype=real.int16)
    records = records_of(torch_save([t, i]))
    records["byteorder"] = b"big"
    records["data/0"] = np.frombuffer(records["data/0"], "<f8").astype(">f8").tobytes()
    records["data/1"] = np.frombuffer(records["data/1"], "<i2").astype(">i2").tobytes()
    got = vfw_load(zip_with(records, prefix="other_name"))
    assert got[0].tolist() == [1.5, -2.0, 3.25] and got[1].tolist() == [1, -2, 300]


# -- vfw saves, real torch loads (weights_only=True) -----------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 3), (2, 1, 4)])
def test_vfw_saves_every_dtype_and_shape(dtype, shape):
    t = vfw_tensor_of(dtype, shape)
    got = torch_load(vfw_save(t))
    assert type(got) is real.Tensor
    assert_same_tree(got, t)


def test_vfw_views_share_one_storage_in_torch():
    base = vt.arange(24.0).reshape(4, 6)
    views = [base, base.t(), base[1:, ::2], base[2], base[:, 3], base.narrow(1, 2, 3), base.expand(2, 4, 6)]
    got = torch_load(vfw_save(views))
    assert_same_tree(got, views)
    pointer = got[0].untyped_storage().data_ptr()
    assert all(v.untyped_storage().data_ptr() == pointer for v in got)
    assert got[0].untyped_storage().nbytes() == 24 * 4


def test_vfw_numpy_views_outside_one_buffer_are_copied():
    """Tensors over numpy memory torch cannot describe (negative strides) are saved as copies."""
    array = np.arange(10.0)
    reversed_view = vt.from_numpy(array[::-1])
    strided = vt.from_numpy(array[1::3])
    got = torch_load(vfw_save([reversed_view, strided]))
    assert got[0].tolist() == array[::-1].tolist() and got[1].tolist() == array[1::3].tolist()


def test_vfw_state_dict_loads_into_torch_module():
    model = vt.nn.Linear(3, 4)
    state = model.state_dict()
    got = torch_load(vfw_save(state))
    assert type(got) is collections.OrderedDict and got._metadata == state._metadata
    assert_same_tree(got, state)
    twin = real.nn.Linear(3, 4)
    twin.load_state_dict(got)
    x = np.random.default_rng(2).standard_normal((5, 3)).astype(np.float32)
    with real.no_grad():
        want = twin(real.from_numpy(x)).numpy()
    np.testing.assert_allclose(model(vt.from_numpy(x)).detach().numpy(), want, rtol=1e-6, atol=1e-6)


def test_vfw_parameters_attributes_and_python_values():
    p = vt.nn.Parameter(vt.randn(2, 3))
    tagged = vt.nn.Parameter(vt.ones(2), requires_grad=False)
    tagged.note = "kept"
    t = vt.ones(2)
    t.scale = 3
    objs = {"p": p, "again": p, "tagged": tagged, "t": t, "leaf": vt.ones(2, requires_grad=True),
            "nonleaf": vt.ones(2, requires_grad=True) * 2, "size": vt.Size([2, 3]), "dtype": vt.float16,
            "device": vt.device("cpu"), "bytes": b"\x00\xff", "bytearray": bytearray(b"q"), "set": {1, 2},
            "complex": 2 + 3j, "none": None, "big": -(2 ** 80), "ints": [0, 255, 256, 65535, 65536, -1, 2 ** 31],
            "inf": math.inf, "nan": math.nan, "text": "ünï €", "nested": (1, [2.5, (3, "x")], {"k": None}),
            "counter": collections.Counter(a=2), 7: "int key", ("t", 1): "tuple key"}
    got = torch_load(vfw_save(objs))
    assert isinstance(got["p"], real.nn.Parameter) and got["again"] is got["p"]
    assert got["tagged"].note == "kept" and got["t"].scale == 3 and not got["tagged"].requires_grad
    assert got["nonleaf"].requires_grad and got["nonleaf"].grad_fn is None
    objs["nonleaf"] = objs["nonleaf"].detach().requires_grad_()  # a saved non-leaf loads as a leaf, as in torch
    assert_same_tree(got, objs)


def test_vfw_optimizer_state_dict_structure():
    state = {"state": {0: {"step": vt.tensor(3.0), "exp_avg": vt.zeros(2, 3)}, 1: {"momentum_buffer": None}},
             "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "eps": 1e-8, "amsgrad": False, "foreach": None,
                               "params": [0, 1]}]}
    assert_same_tree(torch_load(vfw_save(state)), state)


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_vfw_pickle_protocols(protocol):
    objs = {"a": vt.arange(4.0), "b": b"bytes", "s": {1}, "c": 1j}
    data = vfw_save(objs, pickle_protocol=protocol)
    assert records_of(data)["data.pkl"][:2] == bytes([0x80, protocol])
    assert_same_tree(torch_load(data), objs)
    assert_same_tree(vfw_load(data), objs)


def test_vfw_archive_layout_matches_torch():
    data = vfw_save(vt.ones(3))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.testzip() is None
        names = z.namelist()
        for info in z.infolist():
            header = data[info.header_offset:info.header_offset + 30]
            assert (info.header_offset + 30 + sum(struct.unpack("<HH", header[26:30]))) % 64 == 0
    assert names == ["archive/" + n for n in ("data.pkl", ".format_version", ".storage_alignment", "byteorder",
                                              "data/0", "version", ".data/serialization_id")]
    records = records_of(data)
    assert records["version"] == b"3\n" and records[".format_version"] == b"1"
    assert "byteorder" not in records_of(vfw_save(vt.ones(1), _disable_byteorder_record=True))


def test_vfw_zip64_records(monkeypatch):
    """Sizes and offsets past the zip32 limit go in zip64 fields (the limit lowered to test it)."""
    monkeypatch.setattr(_archive, "_ZIP64_LIMIT", 100)
    objs = [vt.arange(40.0), vt.ones(3)]
    data = vfw_save(objs)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.testzip() is None
    assert_same_tree(torch_load(data), objs)


def test_vfw_refuses_one_memory_as_two_dtypes_like_torch():
    x = real.ones(4)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        real.save([x, x.view(real.int32)], io.BytesIO())
    y = vt.ones(4)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        vfw_save([y, y.view(vt.int32)])
    assert torch_load(vfw_save(y.view(vt.int32))).tolist() == [1065353216] * 4


def test_vfw_save_unsupported_objects():
    with pytest.raises(TypeError, match="state_dict"):
        vfw_save(vt.nn.Linear(2, 2))
    with pytest.raises(TypeError, match="numpy"):
        vfw_save({"x": np.float64(1.0)})
    with pytest.raises(ValueError, match="pickle_protocol"):
        vfw_save(1, pickle_protocol=1)
    with pytest.raises(NotImplementedError):
        vfw_save(1, _use_new_zipfile_serialization=False)


# -- vfw round trips, files and arguments ----------------------------------------------------------
def test_round_trip_paths_and_file_objects(tmp_path):
    base = vt.arange(6.0).reshape(2, 3)
    objs = {"a": base, "b": base[:, 1], "p": vt.nn.Parameter(vt.ones(2)), "sd": vt.nn.Linear(2, 2).state_dict()}
    path = tmp_path / "model.pt"
    serialization.save(objs, str(path))
    for source in (str(path), path, pathlib.PurePath(path)):
        got = serialization.load(source)
        assert_same_tree(got, objs)
        assert shares_memory(got["a"], got["b"])
    assert zipfile.ZipFile(path).namelist()[0] == "model/data.pkl"  # torch names the archive after the file
    with open(tmp_path / "f.pt", "wb") as f:
        serialization.save(objs, f)
    with open(tmp_path / "f.pt", "rb") as f:
        assert_same_tree(serialization.load(f), objs)
    assert_same_tree(real.load(path, weights_only=True), objs)


def test_load_map_location_and_options(tmp_path):
    path = tmp_path / "x.pt"
    serialization.save({"w": vt.ones(2)}, path)
    for location in ("cpu", vt.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage, lambda s, loc: None):
        assert serialization.load(path, map_location=location)["w"].tolist() == [1.0, 1.0]
    assert serialization.load(path, weights_only=False)["w"].tolist() == [1.0, 1.0]
    for location in ("cuda", "cuda:0", vt.device("cuda"), {"cpu": "cuda:1"}):
        with pytest.raises(RuntimeError, match="CUDA device"):
            serialization.load(path, map_location=location)
    with pytest.raises(AssertionError, match="CUDA"):
        serialization.load(path, map_location=lambda storage, loc: storage.cuda())


def test_load_storages_saved_on_cuda():
    records = records_of(torch_save([real.arange(3.0)]))
    records["data.pkl"] = records["data.pkl"].replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    data = zip_with(records)
    with pytest.raises(RuntimeError, match="torch.cuda.is_available\\(\\) is False"):
        vfw_load(data)
    assert vfw_load(data, map_location="cpu")[0].tolist() == [0.0, 1.0, 2.0]
    assert vfw_load(data, map_location={"cuda:0": "cpu"})[0].tolist() == [0.0, 1.0, 2.0]


def test_mmap_is_copy_on_write(tmp_path):
    path = tmp_path / "m.pt"
    real.save({"a": real.arange(5.0), "b": real.ones(2, 2, dtype=real.float16)}, path)
    before = path.read_bytes()
    got = serialization.load(path, mmap=True)
    assert got["a"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and got["b"].dtype == vt.float16
    got["a"].add_(10)
    assert got["a"].tolist() == [10.0, 11.0, 12.0, 13.0, 14.0]
    assert path.read_bytes() == before
    with pytest.raises(ValueError, match="file path"):
        serialization.load(io.BytesIO(before), mmap=True)


def test_load_errors():
    with pytest.raises(EOFError):
        vfw_load(b"")
    with pytest.raises(pickle.UnpicklingError):
        vfw_load(b"garbage that is no checkpoint")
    data = torch_save(real.ones(3))
    with pytest.raises(RuntimeError, match="zip archive"):
        vfw_load(data[:-30])
    with pytest.raises(FileNotFoundError):
        serialization.load("/nonexistent/file.pt")
    with pytest.raises(TypeError, match="unexpected keyword"):
        vfw_load(data, bogus=1)
    with pytest.raises(RuntimeError, match="TorchScript"):
        buf = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            real.jit.save(real.jit.script(real.nn.Linear(2, 2)), buf)
        vfw_load(buf.getvalue())


def test_atomic_save_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    serialization.save({"v": vt.ones(2)}, path)
    before = path.read_bytes()
    with pytest.raises(AttributeError, match="local object"):  # as torch: a local lambda cannot be pickled
        serialization.save({"v": vt.zeros(2), "bad": lambda: 0}, path)
    add = _archive.ArchiveWriter.add

    def failing_add(self, name, data):
        if name.startswith("data/"):
            raise OSError("disk full")
        add(self, name, data)

    monkeypatch.setattr(_archive.ArchiveWriter, "add", failing_add)
    with pytest.raises(OSError, match="disk full"):
        serialization.save({"v": vt.zeros(2)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.pt"]  # the temporary file is gone
    monkeypatch.undo()
    serialization.save({"v": vt.zeros(2)}, path)
    assert serialization.load(path)["v"].tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="Parent directory"):
        serialization.save(1, tmp_path / "missing" / "x.pt")


# -- malicious files -------------------------------------------------------------------------------
class _Exploit:
    def __init__(self, fn, arg):
        self.fn, self.arg = fn, arg

    def __reduce__(self):
        return self.fn, (self.arg,)


def _exploits(marker):
    yield _Exploit(os.system, f"touch {marker}")
    yield _Exploit(exec, f"open({str(marker)!r}, 'w').close()")
    yield {"weights": real.ones(2), "hook": _Exploit(eval, f"open({str(marker)!r}, 'w')")}


@pytest.mark.parametrize("weights_only", [True, False])
def test_malicious_pickles_never_run(tmp_path, weights_only):
    marker = tmp_path / "pwned"
    for exploit in _exploits(marker):
        for data in (zip_with({"data.pkl": pickle.dumps(exploit, protocol=2), "version": b"3\n"}),
                     zip_with({"data.pkl": pickle.dumps(exploit, protocol=5)}),
                     pickle.dumps(exploit, protocol=2)):  # not a zip: the legacy-format reader
            with pytest.raises(pickle.UnpicklingError) as info:
                vfw_load(data, weights_only=weights_only)
            assert not marker.exists()
            if data.startswith(b"PK"):
                assert "Unsupported global: GLOBAL" in str(info.value)
                assert "Weights only load failed" in str(info.value)
    real_file = torch_save({"w": real.ones(1), "bad": _Exploit(os.system, f"touch {marker}")})
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL posix.system|GLOBAL nt.system"):
        vfw_load(real_file, weights_only=weights_only)
    assert not marker.exists()


@pytest.mark.parametrize("pickle_bytes, message", [
    (b"\x80\x02cnumpy\nndarray\n.", "GLOBAL numpy.ndarray"),
    (b"\x80\x02ccollections\nOrderedDict\n}X\x04\x00\x00\x00keysK\x01sb.", "cannot set the state"),
    (b"\x80\x02ccollections\nOrderedDict\n)R}X\x04\x00\x00\x00keysK\x01sb.", "refusing to set attribute 'keys'"),
    (b"\x80\x02ccollections\nOrderedDict\n)R}X\x08\x00\x00\x00__init__K\x01sb.", "refusing to set attribute"),
    (b"\x80\x02ctorch\nfloat32\n)R.", "not callable"),
    (b"\x80\x02c__builtin__\nbytearray\nJ\x00\xca\x9a;\x85R.", "unexpected arguments to bytearray"),
    (b"(iposix\nsystem\n.", "Unsupported operand INST"),
    (b"\x80\x02cposix\nsystem\n\x81.", "GLOBAL posix.system"),
    (b"\x80\x02K\x01h\x05.", "memo key"),
    (b"\x80\x02a.", "stack underflow"),
    (b"\x80\x02K\x01", "STOP"),
    (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(K\x00K\x00)K\x00tR.", "malformed"),
    (b"\x80\x02ccollections\nOrderedDict\n]]K\x01aa\x85R.", "malformed pickle: bad call of OrderedDict"),
])
def test_refused_pickles(pickle_bytes, message):
    with pytest.raises(pickle.UnpicklingError, match=message):
        vfw_load(zip_with({"data.pkl": pickle_bytes}))


def test_bare_storages_are_refused():
    t = real.arange(3.0)
    for obj in (t.untyped_storage(), {"s": real.ones(2).untyped_storage(), "t": t}):
        with pytest.raises(RuntimeError, match="bare storage"):
            vfw_load(torch_save(obj))


def test_out_of_bounds_tensor_record_is_refused():
    records = records_of(torch_save(real.ones(2)))
    # the tensor's size tuple (2,) becomes (9,): more elements than its 2-element storage holds
    records["data.pkl"] = records["data.pkl"].replace(b"K\x02\x85", b"K\x09\x85", 1)
    with pytest.raises(pickle.UnpicklingError, match="storage holds 2"):
        vfw_load(zip_with(records))
