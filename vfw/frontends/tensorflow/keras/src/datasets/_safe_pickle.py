"""Unpickling restricted to data: the numpy arrays, dicts, lists, strings, bytes and numbers that Keras'
data set files hold (CIFAR batches; IMDB/Reuters ragged ``dtype=object`` arrays inside ``.npz``).

A pickle can name any importable callable; this unpickler resolves only the numpy array rebuilders,
so a tampered file cannot run code.
"""

import io
import pickle
import zipfile

import numpy as np

# Rebuilding an ndarray from a pickle names exactly these (numpy < 2 spells the module numpy.core).
_ARRAY_GLOBALS = frozenset({
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
})


class DataUnpickler(pickle.Unpickler):
    """A ``pickle.Unpickler`` that refuses every global except the numpy array rebuilders."""

    def find_class(self, module, name):
        if (module, name) in _ARRAY_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"Refusing to deserialize `{module}.{name}` while loading a Keras dataset. The "
                                     "file may be corrupted or malicious.")


def _read_npy(stream):
    """One ``.npy`` member: numeric arrays without pickles, object arrays through :class:`DataUnpickler`."""
    try:
        return np.lib.format.read_array(stream, allow_pickle=False)
    except ValueError:
        stream.seek(0)
        major, _ = np.lib.format.read_magic(stream)
        if major == 1:
            np.lib.format.read_array_header_1_0(stream)
        elif major in (2, 3):  # version 3 only changes the header's text encoding, not its layout
            np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"Unsupported `.npy` file version: {(major, _)}.") from None
        return DataUnpickler(stream).load()


def load_npz(path):
    """``{name: array}`` of the ``.npy`` members of the ``.npz`` archive at ``path``."""
    arrays = {}
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            if member.endswith(".npy"):
                with archive.open(member) as raw:
                    arrays[member[:-len(".npy")]] = _read_npy(io.BytesIO(raw.read()))
    return arrays


def load_pickle(path, encoding="bytes"):
    """The object pickled in the file at ``path``, built by :class:`DataUnpickler`."""
    with open(path, "rb") as stream:
        return DataUnpickler(stream, encoding=encoding).load()
