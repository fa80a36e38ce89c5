"""keras.datasets loaders and keras.utils.get_file against real Keras 3.15.1, without the network.

Small files in each data set's cache format are written into a temporary KERAS_HOME that both
libraries read. Their hashes differ from the published files', so the loader tests make both
libraries accept any hash (``validate_file`` patched on each side); ``get_file``'s own hash checks
and downloads are tested with ``file://`` origins.
"""

import gzip
import hashlib
import io
import json
import os
import pickle
import tarfile
import zipfile

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW, assert_same, comparable

real_file_utils = pytest.importorskip("keras.src.utils.file_utils")
import keras.src.backend.config as real_config  # noqa: E402

from vfw.frontends.tensorflow.keras.src.utils import file_utils as vfw_file_utils  # noqa: E402

RNG = np.random.default_rng(7)


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    """A temporary KERAS_HOME both libraries use, with hash checks accepting the synthetic files."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr(real_config, "_KERAS_DIR", str(tmp_path))
    for module in (real_file_utils, vfw_file_utils):
        monkeypatch.setattr(module, "validate_file", lambda *args, **kwargs: True)
    (tmp_path / "datasets").mkdir()
    return tmp_path / "datasets"


def plain(x):
    """Results with ragged object arrays turned into nested lists, for ``comparable``."""
    if isinstance(x, np.ndarray) and x.dtype == object:
        return ("object array", x.shape, [plain(item) for item in x])
    if isinstance(x, (list, tuple)):
        return type(x)(plain(item) for item in x)
    return x


def both(fn):
    """``fn(lib)`` on real Keras and on vfw; the same arrays, dtypes, shapes and values, or the same error."""
    results = []
    for lib in (REAL, VFW):
        try:
            results.append(comparable(plain(fn(lib))))
        except Exception as error:  # compared with the other library's
            results.append(("raised", type(error).__name__, str(error)))
    assert_same(*results)


def save_npz(path, **arrays):
    np.savez(path, **arrays)


def ragged(count, high=40):
    out = np.empty(count, dtype=object)
    for i in range(count):
        out[i] = [int(v) for v in RNG.integers(0, high, size=RNG.integers(1, 12))]
    return out


def test_mnist(keras_home):
    save_npz(keras_home / "mnist.npz", x_train=RNG.integers(0, 255, (5, 28, 28), dtype=np.uint8),
             y_train=np.arange(5, dtype=np.uint8), x_test=RNG.integers(0, 255, (3, 28, 28), dtype=np.uint8),
             y_test=np.arange(3, dtype=np.uint8))
    both(lambda lib: lib.keras.datasets.mnist.load_data())


def test_fashion_mnist(keras_home):
    folder = keras_home.parent / "datasets" / "fashion-mnist"
    folder.mkdir()
    for prefix, count in (("train", 4), ("t10k", 2)):
        with gzip.open(folder / f"{prefix}-labels-idx1-ubyte.gz", "wb") as stream:
            stream.write(b"\0" * 8 + bytes(RNG.integers(0, 10, count, dtype=np.uint8)))
        with gzip.open(folder / f"{prefix}-images-idx3-ubyte.gz", "wb") as stream:
            stream.write(b"\1" * 16 + RNG.integers(0, 255, count * 784, dtype=np.uint8).tobytes())
    both(lambda lib: lib.keras.datasets.fashion_mnist.load_data())


def _cifar_tar(path, inner, batches):
    """An uncompressed tar of ``inner/<name>`` CIFAR pickles; identical batches are stored as hard links."""
    staging = path.parent / "staging" / inner
    staging.mkdir(parents=True)
    first = {}
    for name, batch in batches.items():
        key = id(batch)
        if key in first:
            os.link(first[key], staging / name)
            continue
        with open(staging / name, "wb") as stream:
            pickle.dump(batch, stream, protocol=2)
        first[key] = staging / name
    with tarfile.open(path, "w") as archive:
        archive.add(staging, arcname=inner)


def _cifar_batch(count, **labels):
    """A CIFAR batch dict; only its first 50 images are random (the full-size CIFAR-10 batches stay cheap)."""
    data = np.zeros((count, 3072), dtype=np.uint8)
    data[:50] = RNG.integers(0, 255, (min(count, 50), 3072), dtype=np.uint8)
    return {b"data": data,
            **{key.encode(): [int(v) for v in RNG.integers(0, 10, count)] for key in labels}}


def test_cifar10(keras_home):
    shared = _cifar_batch(10000, labels=1)
    batches = {"data_batch_1": _cifar_batch(10000, labels=1), "test_batch": _cifar_batch(6, labels=1)}
    batches.update({f"data_batch_{i}": shared for i in range(2, 6)})
    _cifar_tar(keras_home / "cifar-10-batches-py-target_archive", "cifar-10-batches-py", batches)
    both(lambda lib: lib.keras.datasets.cifar10.load_data())


@pytest.mark.parametrize("label_mode", ["fine", "coarse", "medium"])
def test_cifar100(keras_home, label_mode):
    batches = {"train": _cifar_batch(7, fine_labels=1, coarse_labels=1),
               "test": _cifar_batch(3, fine_labels=1, coarse_labels=1)}
    _cifar_tar(keras_home / "cifar-100-python-target_archive", "cifar-100-python", batches)
    both(lambda lib: lib.keras.datasets.cifar100.load_data(label_mode=label_mode))


def test_cifar_batch_refuses_code(tmp_path):
    """A pickle naming anything but the numpy array rebuilders is refused (pickle.UnpicklingError)."""
    from vfw.frontends.tensorflow.keras.src.datasets.images import load_batch

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    path = tmp_path / "data_batch_1"
    path.write_bytes(pickle.dumps({b"data": Evil()}))
    with pytest.raises(pickle.UnpicklingError, match="Refusing to deserialize"):
        load_batch(str(path))


@pytest.mark.parametrize("split", [{}, {"test_split": 0.5, "seed": 3}, {"test_split": 1.0}])
def test_housing(keras_home, split):
    save_npz(keras_home / "boston_housing.npz", x=RNG.normal(size=(11, 13)), y=RNG.normal(size=11))
    save_npz(keras_home / "california_housing.npz", x=RNG.normal(size=(700, 8)).astype("float32"),
             y=RNG.normal(size=700).astype("float32"))
    both(lambda lib: lib.keras.datasets.boston_housing.load_data(**split))
    both(lambda lib: lib.keras.datasets.california_housing.load_data(**split))
    both(lambda lib: lib.keras.datasets.california_housing.load_data(version="small", **split))
    both(lambda lib: lib.keras.datasets.california_housing.load_data(version="tiny"))


@pytest.mark.parametrize("options", [{}, {"num_words": 20, "skip_top": 3}, {"maxlen": 8, "seed": 5},
                                     {"start_char": None, "oov_char": None, "num_words": 25, "index_from": 0},
                                     {"start_char": None, "index_from": 2}, {"maxlen": 1}])
def test_imdb_and_reuters(keras_home, options):
    save_npz(keras_home / "imdb.npz", x_train=ragged(9), y_train=RNG.integers(0, 2, 9), x_test=ragged(6),
             y_test=RNG.integers(0, 2, 6))
    save_npz(keras_home / "reuters.npz", x=ragged(12), y=RNG.integers(0, 46, 12))
    both(lambda lib: lib.keras.datasets.imdb.load_data(**options))
    both(lambda lib: lib.keras.datasets.reuters.load_data(test_split=0.3, **options))


def test_word_indices_and_labels(keras_home):
    (keras_home / "imdb_word_index.json").write_text(json.dumps({"the": 1, "film": 2}))
    (keras_home / "reuters_word_index.json").write_text(json.dumps({"said": 1}))
    both(lambda lib: (lib.keras.datasets.imdb.get_word_index(), lib.keras.datasets.reuters.get_word_index(),
                      lib.keras.datasets.reuters.get_label_names()))


def test_npz_object_arrays_refuse_code(tmp_path):
    from vfw.frontends.tensorflow.keras.src.datasets._safe_pickle import load_npz

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    buffer = io.BytesIO()
    np.save(buffer, np.array([Evil()], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(tmp_path / "evil.npz", "w") as archive:
        archive.writestr("x.npy", buffer.getvalue())
    with pytest.raises(pickle.UnpicklingError, match="Refusing"):
        load_npz(str(tmp_path / "evil.npz"))


# -- get_file ------------------------------------------------------------------------------------
def _get_file_case(tmp_path, lib, **kwargs):
    """``get_file`` with a per-library cache folder; returns the path relative to it and the file's bytes."""
    cache = tmp_path / lib.name
    cache.mkdir(exist_ok=True)  # a missing cache_dir is not writable: get_file would fall back to /tmp/.keras
    path = lib.keras.utils.get_file(cache_dir=str(cache), **kwargs)
    relative = os.path.relpath(path, cache)
    if os.path.isdir(path):
        return relative, sorted(os.path.relpath(os.path.join(root, f), path)
                                for root, _, files in os.walk(path) for f in files)
    with open(path, "rb") as stream:
        return relative, stream.read()


@pytest.mark.parametrize("case", ["plain", "sha256", "md5", "md5_hash", "bad_hash", "missing", "no_origin",
                                  "path_fname", "no_fname", "tar", "tar_named", "zip_untar", "subdir"])
def test_get_file(tmp_path, case):
    source = tmp_path / "source"
    source.mkdir()
    payload = b"payload bytes"
    (source / "data.bin").write_bytes(payload)
    with tarfile.open(source / "arch.tar.gz", "w:gz") as archive:
        archive.add(source / "data.bin", arcname="inner/data.bin")
    with zipfile.ZipFile(source / "arch.zip", "w") as archive:
        archive.writestr("z/data.txt", "zip")
    url = (source / "data.bin").as_uri()
    kwargs = {
        "plain": {"fname": "d.bin", "origin": url},
        "sha256": {"fname": "d.bin", "origin": url, "file_hash": hashlib.sha256(payload).hexdigest()},
        "md5": {"fname": "d.bin", "origin": url, "file_hash": hashlib.md5(payload).hexdigest()},
        "md5_hash": {"fname": "d.bin", "origin": url, "md5_hash": hashlib.md5(payload).hexdigest()},
        "bad_hash": {"fname": "d.bin", "origin": url, "file_hash": "0" * 64},
        "missing": {"fname": "m.bin", "origin": (source / "missing.bin").as_uri()},
        "no_origin": {"fname": "x"},
        "path_fname": {"fname": os.path.join("a", "b"), "origin": url},
        "no_fname": {"origin": url},
        "tar": {"fname": "arch", "origin": (source / "arch.tar.gz").as_uri(), "extract": True},
        "tar_named": {"fname": "arch.tar.gz", "origin": (source / "arch.tar.gz").as_uri(), "extract": True},
        "zip_untar": {"origin": (source / "arch.zip").as_uri(), "extract": True},
        "subdir": {"fname": "d.bin", "origin": url, "cache_subdir": "other"},
    }[case]
    both(lambda lib: [_get_file_case(tmp_path, lib, **kwargs) for _ in range(2)])


def test_get_file_redownloads_a_stale_cached_file(tmp_path):
    source = tmp_path / "fresh.bin"
    source.write_bytes(b"fresh")

    def fn(lib):
        cache = tmp_path / lib.name
        (cache / "datasets").mkdir(parents=True)
        (cache / "datasets" / "f.bin").write_bytes(b"stale")
        kept = lib.keras.utils.get_file("f.bin", source.as_uri(), cache_dir=str(cache))
        with open(kept, "rb") as stream:
            unchecked = stream.read()
        fetched = lib.keras.utils.get_file("f.bin", source.as_uri(), cache_dir=str(cache),
                                           file_hash=hashlib.sha256(b"fresh").hexdigest())
        with open(fetched, "rb") as stream:
            return unchecked, stream.read()

    both(fn)
