"""Checking that every process of a group runs the same collective on tensors that agree, before the collective.

gloo, given tensors of different sizes or dtypes on different ranks, aborts a process (``gloo::EnforceNotMet``:
"Received data size doesn't match expected size"), fails its peers with "Connection closed by peer", or silently
reinterprets bytes (a float32 tensor reduced with an int32 one); MPI truncates messages or returns garbage the
same way.  torch checks collectives only under ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` (its ``CollectiveFingerPrint``);
here every eager collective of the torch frontend does, with one extra all-reduce of a few integers: every rank
then raises torch's RuntimeError, naming the collective, the ranks and their shapes and dtypes.

What must agree is what the transfer needs: the collective, the byte count, the dtype and (where there is one) the
root or reduction.  Shapes of the same size may differ, as gloo reduces and broadcasts flat memory.  DDP's
gradient averaging calls the engine directly and pays nothing.
"""

import zlib

import numpy as np

from vfw.frontends.torch import _dispatch

_CODES = {}  # name -> a stable integer (the same in every process: no per-process hash seed)


def _code(name):
    code = _CODES.get(name)
    if code is None:
        code = _CODES[name] = zlib.crc32(name.encode())
    return code


def check_agree(pg, name, array, detail=None):
    """Raise RuntimeError on every rank of ``pg`` unless every rank calls collective ``name`` with an ``array`` of
    the same byte count and dtype (and the same ``detail``: a root rank or a reduction).

    Collective: every rank of the group must call it (as it must call the collective itself).
    """
    if pg.size() == 1 or _dispatch._tracing:
        return
    fields = [_code(name), array.nbytes, _code(array.dtype.name), _code(str(detail))]
    both = np.array(fields + [-f for f in fields], np.int64)
    # the largest and (negated) smallest of each field; a peer that never comes is the collective's timeout
    pg.engine.all_reduce(both, "max", out=both, description=lambda: _timed_out(name, array, detail))
    extremes = both.tolist()
    if extremes[:4] == [-f for f in extremes[4:]]:
        return
    prints = pg.engine.all_gather_object((name, tuple(array.shape), array.nbytes, array.dtype.name, detail))
    me = pg.rank()
    other = next(r for r, p in enumerate(prints) if _key(p) != _key(prints[me]))
    mine, theirs = prints[me], prints[other]
    differ = [aspect for aspect, a, b in (("collectives", mine[0], theirs[0]), ("tensor sizes", mine[2], theirs[2]),
                                          ("dtypes", mine[3], theirs[3]), ("roots or reductions", mine[4], theirs[4]))
              if a != b]
    raise RuntimeError(f"Detected mismatch between collectives on ranks. Rank {pg.ranks[me]} is running collective: "
                       f"{_describe(mine)}, but Rank {pg.ranks[other]} is running collective: {_describe(theirs)}. "
                       f"Collectives differ in {', '.join(differ)}.")


def check_splits(pg, name, dtype, send_counts, recv_counts):
    """Raise RuntimeError on every rank of ``pg`` unless every rank's dtype is ``dtype`` and each rank sends every
    other the number of elements that one expects from it (``send_counts[d]`` to rank ``d``, ``recv_counts[s]``
    from rank ``s``).  Collective."""
    if pg.size() == 1 or _dispatch._tracing:
        return
    size = pg.size()
    mine = np.array([_code(np.dtype(dtype).name), *send_counts, *recv_counts], np.int64)
    table = pg.engine.all_gather(mine)  # (size, 1 + 2 * size): every rank's dtype, sends and receives
    dtypes, sends, receives = table[:, 0], table[:, 1:1 + size], table[:, 1 + size:]
    if (dtypes != dtypes[0]).any():
        names = pg.engine.all_gather_object(_dispatch.type_name(dtype))
        raise RuntimeError(f"{name}: the ranks' tensors have different dtypes: "
                           f"{', '.join(f'rank {pg.ranks[r]} {n}' for r, n in enumerate(names))}")
    wrong = np.argwhere(sends != receives.T)  # sends[s, d] must equal receives[d, s]
    if len(wrong):
        s, d = (int(v) for v in wrong[0])
        raise RuntimeError(f"{name}: rank {pg.ranks[s]} sends {sends[s, d]} elements to rank {pg.ranks[d]}, which "
                           f"expects {receives[d, s]} from it (the ranks' split sizes or tensor sizes disagree)")


def _timed_out(name, array, detail):
    """The collective as the watchdog names it, in the engine's words (``all_reduce(sum) of (4,) float32``)."""
    if name == "all_reduce":
        return f"all_reduce({_REDUCTIONS.get(detail, detail)}) of {array.shape} {array.dtype}"
    return f"{name}{'' if detail is None else f' ({detail})'} of {array.shape} {array.dtype}"


_REDUCTIONS = {f"op={name}": engine for name, engine in (("SUM", "sum"), ("AVG", "avg"), ("PRODUCT", "prod"),
                                                          ("MIN", "min"), ("MAX", "max"), ("BAND", "band"),
                                                          ("BOR", "bor"), ("BXOR", "bxor"))}


def _key(fingerprint):
    name, _, nbytes, dtype, detail = fingerprint
    return name, nbytes, dtype, str(detail)


_OP_TYPES = {"all_reduce": "ALLREDUCE", "broadcast": "BROADCAST", "all_gather": "ALLGATHER", "reduce": "REDUCE",
             "all_gather_into_tensor": "_ALLGATHER_BASE", "reduce_scatter_tensor": "_REDUCE_SCATTER_BASE",
             "reduce_scatter": "REDUCE_SCATTER", "gather": "GATHER", "scatter": "SCATTER",
             "all_to_all": "ALLTOALL"}


def _describe(fingerprint):
    """A rank's collective in the words of torch's ``CollectiveFingerPrint`` (plus its root or reduction)."""
    name, shape, _, dtype, detail = fingerprint
    text = (f"CollectiveFingerPrint(OpType={_OP_TYPES.get(name, name)}, TensorShape={list(shape)}, "
            f"TensorDtypes={_dispatch.type_name(dtype)}")
    return text + (f", {detail})" if detail is not None else ")")
