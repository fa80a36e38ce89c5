"""``torch.export.save`` / ``load`` in vfw's own archive: a zip holding ``graph.pb`` (the engine GraphDef, validated
on load), ``tensors/<k>.bin`` (raw bytes of each state tensor) and ``meta.json`` (signature, shapes, dtypes).
Nothing in the file is ever executed or unpickled."""

import io
import json
import os
import zipfile

import numpy as np
from google.protobuf.message import DecodeError

from vfw.core import dtypes as dt
from vfw.core import proto  # the module: its classes have no __module__ for torch's type names to read
from vfw.core.errors import VfwError
from vfw.core.graph.serialize import validate_graph
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.export._program import ExportedProgram, ProgramRunner
from vfw.frontends.torch.export.graph_signature import (
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    TensorArgument,
)
from vfw.frontends.torch.nn.parameter import Parameter

_FORMAT = "vfw.export/1"


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    """Write the exported program ``ep`` to ``f`` (a path or a binary file object)."""
    if not isinstance(ep, ExportedProgram):
        raise TypeError(f"The 'ep' parameter must be an instance of 'ExportedProgram', got '{type(ep).__name__}' "
                        "instead.")
    runner, signature = ep.runner, ep.graph_signature
    state_keys = [s.target for s in signature.input_specs if s.kind is not InputKind.USER_INPUT]
    arrays = [ep.state_dict[k].array for k in state_keys]  # tobytes() writes C order
    meta = {
        "format": _FORMAT,
        "inputs": [[s.kind.name, s.arg.name, s.target, s.persistent] for s in signature.input_specs],
        "outputs": [[s.kind.name, s.arg.name, s.target] for s in signature.output_specs],
        "state": [[k, dt.onnx_code(a.dtype), list(a.shape), bool(getattr(ep.state_dict[k], "requires_grad", False))]
                  for k, a in zip(state_keys, arrays)],
        "user_names": runner.user_names, "input_shapes": [list(s) for s in runner.input_shapes],
        "input_dtypes": runner.input_dtypes, "dynamic": [[k, d, lo, hi] for (k, d), (lo, hi) in runner.dynamic.items()],
        "out_template": runner.out_template, "extra_files": sorted(extra_files or {}),
    }
    target = f if hasattr(f, "write") else open(os.fspath(f), "wb")
    try:
        with zipfile.ZipFile(target, "w") as archive:
            archive.writestr("meta.json", json.dumps(meta))
            archive.writestr("graph.pb", runner.graph_def.SerializeToString())
            for k, a in enumerate(arrays):
                archive.writestr(f"tensors/{k}.bin", a.tobytes())
            for name, text in (extra_files or {}).items():
                archive.writestr(f"extra/{name}", text)
    finally:
        if target is not f:
            target.close()


def _read(archive, name, where):
    try:
        return archive.read(name)
    except KeyError:
        raise RuntimeError(f"torch.export.load: {where} is not a vfw exported program (no {name})") from None


def load(f, *, extra_files=None, expected_opset_version=None):
    """Read an exported program written by :func:`save` (validated; no code from the file runs)."""
    where = getattr(f, "name", f) if hasattr(f, "read") else os.fspath(f)
    data = f.read() if hasattr(f, "read") else open(os.fspath(f), "rb").read()
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise RuntimeError(f"torch.export.load: {where} is not a vfw exported program (not a zip archive)") from None
    with archive:
        meta = json.loads(_read(archive, "meta.json", where))
        if meta.get("format") != _FORMAT:
            raise RuntimeError(f"torch.export.load: {where} has format {meta.get('format')!r}, expected {_FORMAT!r}")
        graph = proto.GraphDef()
        try:
            graph.ParseFromString(_read(archive, "graph.pb", where))
            validate_graph(graph)
        except (DecodeError, VfwError) as exc:
            raise RuntimeError(f"torch.export.load: {where}: invalid graph ({exc})") from None
        state = {}
        for k, (key, code, shape, requires_grad) in enumerate(meta["state"]):
            raw = _read(archive, f"tensors/{k}.bin", where)
            dtype = dt.as_dtype(code)
            if len(raw) != dtype.itemsize * int(np.prod(shape, dtype=np.int64)):
                raise RuntimeError(f"torch.export.load: {where}: tensor {key!r} has {len(raw)} bytes, which does "
                                   f"not fit shape {shape}")
            array = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
            state[key] = Parameter(_dispatch.wrap(array), requires_grad=requires_grad) \
                if requires_grad else _dispatch.wrap(array)
        if extra_files is not None:
            for name in extra_files:
                extra_files[name] = _read(archive, f"extra/{name}", where).decode()
    runner = ProgramRunner(graph, meta["user_names"], [tuple(s) for s in meta["input_shapes"]], meta["input_dtypes"],
                           {(k, d): (lo, hi) for k, d, lo, hi in meta["dynamic"]}, meta["out_template"])
    signature = ExportGraphSignature(
        [InputSpec(InputKind[kind], TensorArgument(name), target, persistent) for kind, name, target, persistent
         in meta["inputs"]],
        [OutputSpec(OutputKind[kind], TensorArgument(name), target) for kind, name, target in meta["outputs"]])
    return ExportedProgram(runner, signature, state)
