"""torch.save / torch.load: PyTorch's zip checkpoint format, read and written without torch.

A checkpoint is a zip of ``<name>/data.pkl`` (the pickled object graph, where each tensor is a
call of one of torch's rebuild functions over a persistent id naming a storage), one
``<name>/data/<key>`` record of raw bytes per storage, and small ``version``, ``byteorder``,
``.format_version``, ``.storage_alignment`` and ``.data/serialization_id`` records. Files written
here are read by real ``torch.load(f, weights_only=True)`` and the reverse.

Loading never runs code from the file (see ``load``).
"""

import io
import os
import pickle
import secrets
import sys

import numpy as np

from vfw.frontends.torch._device import device
from vfw.frontends.torch.serialization import _archive, _storage
from vfw.frontends.torch.serialization._pickler import CheckpointPickler
from vfw.frontends.torch.serialization._safe_globals import (
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    globals_named,
    lookup,
    safe_globals,
)
from vfw.frontends.torch.serialization._unpickler import ALLOWED_NAMES, refused, unpickle

__all__ = [
    "DEFAULT_PROTOCOL", "add_safe_globals", "clear_safe_globals", "get_safe_globals",
    "get_unsafe_globals_in_checkpoint", "load", "safe_globals", "save",
]

DEFAULT_PROTOCOL = 2  # the pickle protocol torch.save writes by default

_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C  # the first pickle of torch's pre-1.6 format
_LEGACY_PROTOCOL = 1001
_CUDA_REFUSED = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you "
                 "are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to "
                 "map your storages to the CPU.")


# -- save ------------------------------------------------------------------------------------
def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save ``obj`` to a file in PyTorch's zip checkpoint format.

    Parameters
    ----------
    obj : object
        Tensors, Parameters, numbers, strings, bytes, None, ``torch.Size``, dtypes, devices and
        dict / OrderedDict (with attributes such as a state dict's ``_metadata``) / Counter / list /
        tuple / set containers of those: what ``torch.load(weights_only=True)`` accepts. Tensors
        that share memory are stored once and share it again after loading.
    f : str, os.PathLike or binary file
        A path is written atomically: into a temporary file in the same folder, then moved onto
        ``f`` (a failing save leaves an existing file as it was). A file object is written
        directly from its current position.
    pickle_module : module
        Accepted for compatibility and ignored: vfw writes the pickle itself.
    pickle_protocol : int
        The pickle protocol named in ``data.pkl`` (2 to 5). vfw writes protocol-2 opcodes under
        that header, the subset torch's ``weights_only`` unpickler reads.
    _use_new_zipfile_serialization : bool
        Must be True: vfw writes only the zip format (every torch since 1.6 reads it).
    _disable_byteorder_record : bool
        Leave out the ``byteorder`` record, as in torch.

    Raises
    ------
    TypeError
        ``obj`` holds an object of another type (an ``nn.Module``: save its ``state_dict()``).
    RuntimeError
        Two tensors view the same memory as different dtypes (as torch), or the folder of ``f``
        does not exist.
    """
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("vfw.torch.save writes only the zip format (_use_new_zipfile_serialization=True)")
    if type(pickle_protocol) is not int or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"vfw.torch.save: pickle_protocol must be an int from 2 to {pickle.HIGHEST_PROTOCOL}, "
                         f"got {pickle_protocol!r}")
    pickler = CheckpointPickler(pickle_protocol)
    records = [("data.pkl", pickler.dump(obj)), (".format_version", b"1"), (".storage_alignment",
               str(_archive.ALIGNMENT).encode())]
    records += [] if _disable_byteorder_record else [("byteorder", sys.byteorder.encode())]
    records += [(f"data/{key}", data) for key, data in pickler.records]
    records += [("version", b"3\n"), (".data/serialization_id", str(secrets.randbits(128)).zfill(40).encode())]
    if isinstance(f, (str, bytes, os.PathLike)):
        _save_atomically(records, os.fsdecode(f))
    elif hasattr(f, "write"):
        _write_archive(records, f, "archive")
    else:
        raise TypeError(f"vfw.torch.save: f must be a path or a writable binary file, not {type(f).__name__}")


def _write_archive(records, stream, prefix):
    writer = _archive.ArchiveWriter(stream, prefix)
    for name, data in records:
        writer.add(name, data)
    writer.finish()


def _save_atomically(records, path):
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise RuntimeError(f"Parent directory {folder} does not exist.")
    stem = os.path.splitext(os.path.basename(path))[0] or "archive"
    temp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    # O_EXCL: never write through a file or link someone placed at the temporary name
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as stream:
            _write_archive(records, stream, stem)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


# -- load ------------------------------------------------------------------------------------
def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved with ``torch.save`` (by real PyTorch or by vfw).

    Reads the zip format of every torch since 1.6, and the older sequential format. Tensors of
    one storage share memory, as in torch; ``nn.Parameter`` records give
    ``vfw.torch.nn.Parameter``; state dicts keep their ``_metadata``.

    **Safety.** vfw never unpickles arbitrary objects, whatever ``weights_only`` says: its own
    pickle interpreter resolves globals only from a fixed table (tensor/storage/Parameter rebuild
    functions, ``OrderedDict``, ``Counter``, ``set``, ``bytearray``, ``complex``, ``torch.Size``,
    ``torch.device``, dtypes), so loading cannot run code from the file. Anything else raises
    ``pickle.UnpicklingError`` ("Weights only load failed ... Unsupported global: GLOBAL ...").

    Parameters
    ----------
    f : str, os.PathLike or binary file
    map_location : str, torch.device, dict or callable, optional
        Where storages go: 'cpu' (or a CPU device); a dict mapping saved locations to new ones;
        or ``fn(storage, location)`` returning the storage (or None for the default). Storages
        saved on or mapped to CUDA raise torch's RuntimeError (vfw computes on the CPU).
    pickle_module : module
        Accepted for compatibility and ignored (vfw interprets the pickle itself).
    weights_only : bool, optional
        Accepted; True (the default, as in torch 2.13) and False load the same safe way.
    mmap : bool, optional
        Map the file's storages copy-on-write instead of reading them (``f`` must be a path and
        a zip checkpoint). Writes to loaded tensors never reach the file.
    **pickle_load_args
        ``encoding`` (default 'utf-8'; 'bytes' keeps them bytes) and ``errors`` decode the
        Python 2 strings of old checkpoints.

    Returns
    -------
    object

    Raises
    ------
    pickle.UnpicklingError
        A global outside the table, an unsupported pickle opcode or a malformed pickle.
    RuntimeError
        A corrupt archive, CUDA storages without a CPU ``map_location``, a TorchScript archive.
    """
    unknown = set(pickle_load_args) - {"encoding", "errors"}
    if unknown:
        raise TypeError(f"load() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    encoding = pickle_load_args.get("encoding", "utf-8")
    restore = _restorer(map_location)
    is_path = isinstance(f, (str, bytes, os.PathLike))
    if mmap and not is_path:
        raise ValueError("f must be a file path in order to use the mmap argument")
    if is_path:
        with open(f, "rb") as stream:
            return _load_stream(stream, restore, encoding, os.fsdecode(f) if mmap else None)
    if not hasattr(f, "read"):
        raise TypeError(f"vfw.torch.load: f must be a path or a readable binary file, not {type(f).__name__}")
    seekable = getattr(f, "seekable", lambda: False)()
    return _load_stream(f if seekable else io.BytesIO(f.read()), restore, encoding, None)


def _load_stream(stream, restore, encoding, mmap_path):
    start = stream.tell()
    magic = stream.read(4)
    stream.seek(start)
    if not magic:
        raise EOFError("Ran out of input")
    if magic == b"PK\x03\x04":
        mapped = np.memmap(mmap_path, np.uint8, "c") if mmap_path and os.path.getsize(mmap_path) else None
        return _load_zip(_archive.ArchiveReader(stream, mapped), restore, encoding)
    if mmap_path:
        raise ValueError("mmap can only be used with files saved with `torch.save(_use_new_zipfile_serialization="
                         "True)`, please torch.save your checkpoint with this option in order to use mmap.")
    return _load_legacy(stream, restore, encoding)


def _load_zip(archive, restore, encoding):
    if archive.has("constants.pkl"):
        raise RuntimeError("vfw.torch.load: this file is a TorchScript archive (torch.jit.save); vfw cannot load "
                           "TorchScript. Save the model's state_dict() with torch.save instead.")
    if not archive.has("data.pkl"):
        raise RuntimeError("vfw.torch.load: not a torch.save checkpoint (the zip has no <name>/data.pkl record)")
    swap = archive.has("byteorder") and archive.read("byteorder").decode() != sys.byteorder
    storages, refs = {}, []

    def persistent_load(pid):
        if not (type(pid) is tuple and len(pid) == 5 and pid[0] == "storage" and type(pid[2]) is str
                and type(pid[3]) is str and type(pid[4]) is int):
            raise refused(f"malformed pickle: unexpected persistent id {pid!r:.100}")
        _, storage_type, key, location, _ = pid
        if key not in storages:
            if not archive.has(f"data/{key}"):
                raise RuntimeError(f"vfw.torch.load: the checkpoint has no record data/{key}")
            storages[key] = restore(_storage.UntypedStorage(archive.storage_bytes(f"data/{key}"), swap), location)
        return _storage_ref(storages[key], storage_type, refs)

    return _checked(unpickle(archive.read("data.pkl"), persistent_load, encoding), refs)


def _load_legacy(stream, restore, encoding):
    """torch's pre-1.6 format: pickles of a magic number, a version, system info, the object and
    the storage keys, then each storage's element count (int64) and bytes."""
    def no_storages(pid):
        raise refused("malformed pickle: persistent id in a header")

    try:
        magic = unpickle(stream, no_storages, encoding)
    except pickle.UnpicklingError:
        raise pickle.UnpicklingError("vfw.torch.load: not a torch.save checkpoint (neither the zip format nor "
                                     "torch's legacy format)") from None
    if magic != _LEGACY_MAGIC:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = unpickle(stream, no_storages, encoding)
    if version != _LEGACY_PROTOCOL:
        raise RuntimeError(f"Invalid protocol version: {version}")
    info = unpickle(stream, no_storages, encoding)
    little = info.get("little_endian", True) if type(info) is dict else True
    swap = little != (sys.byteorder == "little")
    roots = {}  # key -> (storage, its bytes, dtype, element count): filled from the stream after the object
    refs = []

    def persistent_load(pid):
        if not (type(pid) is tuple and len(pid) == 6 and pid[0] == "storage" and type(pid[2]) is str
                and type(pid[3]) is str and type(pid[4]) is int and pid[4] >= 0):
            raise refused(f"malformed pickle: unexpected persistent id {pid!r:.100}")
        _, storage_type, key, location, count, view = pid
        if view is not None:
            raise refused("storage views (checkpoints of torch before 0.4) are not supported")
        if key not in roots:
            dtype = _storage_dtype(storage_type)
            raw = np.empty(count * dtype.itemsize, np.uint8)
            roots[key] = (restore(_storage.UntypedStorage(raw), location), raw, dtype, count)
        return _storage_ref(roots[key][0], storage_type, refs)

    result = unpickle(stream, persistent_load, encoding)
    keys = unpickle(stream, no_storages, encoding)
    if type(keys) is not list or set(keys) != set(roots):
        raise RuntimeError("vfw.torch.load: corrupt legacy checkpoint (its storage list does not match its tensors)")
    for key in keys:
        _, raw, dtype, count = roots[key]
        header = stream.read(8)
        if len(header) != 8 or int.from_bytes(header, "little", signed=True) != count:
            raise RuntimeError(f"vfw.torch.load: corrupt legacy checkpoint (storage {key} has a bad size)")
        if _archive.read_into(stream, raw) != raw.size:
            raise RuntimeError(f"vfw.torch.load: legacy checkpoint truncated in storage {key}")
        if swap:
            raw.view(dtype).byteswap(inplace=True)
    return _checked(result, refs)


def _storage_dtype(storage_type):
    """The numpy element type of a storage record (bytes for untyped storages)."""
    if type(storage_type) is not _storage.StorageType:
        raise refused(f"malformed pickle: {storage_type!r:.60} is not a storage type")
    return np.dtype(np.uint8) if storage_type.dtype is None else storage_type.dtype.np


def _storage_ref(storage, storage_type, refs):
    if type(storage_type) is not _storage.StorageType:
        raise refused(f"malformed pickle: {storage_type!r:.60} is not a storage type")
    refs.append(_storage.StorageRef(storage, storage_type.dtype))
    return refs[-1]


def _checked(result, refs):
    """The loaded object, unless the file held bare storages (vfw has no storage objects to give)."""
    if not all(ref.used for ref in refs):
        raise RuntimeError("vfw.torch.load: the checkpoint holds a bare storage (torch.save(tensor.untyped_storage()) "
                           "or .storage()); vfw loads tensors only")
    return result


# -- map_location ----------------------------------------------------------------------------
def _default_restore(storage, location):
    if location == "cpu" or location == "meta":
        return storage
    if location.startswith("cuda"):
        raise RuntimeError(_CUDA_REFUSED)
    raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
                       f"{location}): vfw tensors live on the CPU; pass map_location='cpu'")


def _location(target):
    if isinstance(target, device):
        return str(target)
    if isinstance(target, str):
        return str(device(target))
    raise TypeError(f"vfw.torch.load: map_location targets must be strings or torch.device, got "
                    f"{type(target).__name__}")


def _restorer(map_location):
    """``restore(storage, location)`` for a ``map_location`` argument."""
    if map_location is None:
        return _default_restore
    if isinstance(map_location, (str, device)):
        target = _location(map_location)
        return lambda storage, location: _default_restore(storage, target)
    if isinstance(map_location, dict):
        table = {key: _location(value) for key, value in map_location.items()}
        return lambda storage, location: _default_restore(storage, table.get(location, location))
    if callable(map_location):
        def restore(storage, location):
            result = map_location(storage, location)
            if result is None:
                return _default_restore(storage, location)
            if type(result) is not _storage.UntypedStorage:
                raise TypeError(f"vfw.torch.load: map_location must return a storage or None, got "
                                f"{type(result).__name__}")
            return result
        return restore
    raise TypeError(f"vfw.torch.load: map_location must be a string, torch.device, dict or callable, not "
                    f"{type(map_location).__name__}")


def get_unsafe_globals_in_checkpoint(f):
    """The globals a checkpoint names that ``torch.load(weights_only=True)`` would refuse, read without
    unpickling anything: neither in the default table nor listed with :func:`add_safe_globals`.

    Parameters
    ----------
    f : str, os.PathLike or binary file
        A zip checkpoint (the format ``torch.save`` writes).

    Returns
    -------
    list of str
        ``"module.name"`` of each such global.
    """
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(f, "rb") as stream:
            return get_unsafe_globals_in_checkpoint(stream)
    stream = f if getattr(f, "seekable", lambda: False)() else io.BytesIO(f.read())
    if stream.read(4) != b"PK\x03\x04":
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    stream.seek(-4, io.SEEK_CUR)
    pickle_bytes = _archive.ArchiveReader(stream, None).read("data.pkl")
    return [name for name in globals_named(pickle_bytes)
            if name not in ALLOWED_NAMES and lookup(name) is None]
