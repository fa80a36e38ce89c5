"""Collectives whose tensors disagree across 2 ranks, for vfw (its launcher) and real torch (torchrun) alike:
``argv[1]`` names the module, ``argv[2]`` the folder each rank writes ``<rank>.json`` to, ``argv[3]`` the cases:
``mismatch`` (sizes or dtypes differ: every rank must raise, as torch does under TORCH_DISTRIBUTED_DEBUG=DETAIL,
where plain gloo aborts a process or reinterprets bytes) or ``agree`` (shapes differ but sizes agree: gloo reduces
flat memory, and a receive may be larger than the message or of another dtype, so these run), or ``vfw``
(all_to_all_single whose ranks disagree on what they exchange, a message larger than the receiving tensor: vfw
only, as gloo fails there without saying why: an abort, a hang or garbage).  test_torch_collective_mismatch.py
compares them.
"""

import importlib
import json
import sys

torch = importlib.import_module(sys.argv[1])
dist = torch.distributed


def outcome(fn):
    try:
        return ["ok", fn()]
    except Exception as e:  # noqa: BLE001 - the exception's type and text are what is compared
        return [type(e).__name__, str(e), isinstance(e, RuntimeError)]


def all_reduce(t):
    dist.all_reduce(t)
    return t.tolist()


def broadcast(t):
    dist.broadcast(t, src=0)
    return t.tolist()


def all_gather(t, out):
    dist.all_gather(out, t)
    return [o.tolist() for o in out]


def all_gather_into_tensor(t, out):
    dist.all_gather_into_tensor(out, t)
    return out.tolist()


def all_to_all_single(out, t, output_splits=None, input_splits=None):
    dist.all_to_all_single(out, t, output_splits, input_splits)
    return out.tolist()


def p2p(sent, received):
    """Rank 0 sends ``sent``; rank 1 receives into ``received``."""
    if rank == 0:
        dist.send(sent, 1)
        return None
    dist.recv(received, 0)
    return received.tolist()


SEND_SPLITS = [[1, 2], [1, 1]]  # rank r's input_split_sizes (rank 0 sends 2 elements to rank 1...)
RECEIVE_SPLITS = [[1, 1], [1, 1]]  # rank r's output_split_sizes (...which expects 1 from rank 0)


def reduce_scatter_tensor(t, out):
    dist.reduce_scatter_tensor(out, t)
    return out.tolist()


dist.init_process_group("gloo")
rank = dist.get_rank()
f32, other = torch.float32, (torch.float32 if rank == 0 else torch.float64)
same_width = torch.float32 if rank == 0 else torch.int32  # same bytes, another type: gloo mixes them silently
cases = {
    "mismatch": {
        "all_reduce sizes": lambda: all_reduce(torch.ones(3 + rank)),
        "all_reduce dtypes": lambda: all_reduce(torch.ones(4, dtype=other)),
        "all_reduce same-width dtypes": lambda: all_reduce(torch.ones(4, dtype=same_width)),
        "broadcast sizes": lambda: broadcast(torch.full((3 + rank,), rank + 1.0)),
        "broadcast fewer": lambda: broadcast(torch.full((4 - rank,), rank + 1.0)),
        "broadcast dtypes": lambda: broadcast(torch.ones(4, dtype=other)),
        "all_gather sizes": lambda: all_gather(torch.ones(2 + rank), [torch.zeros(2 + rank) for _ in range(2)]),
        "all_gather dtypes": lambda: all_gather(torch.ones(2, dtype=other), [torch.zeros(2, dtype=other)] * 2),
        "all_gather_into_tensor sizes": lambda: all_gather_into_tensor(torch.ones(2 + rank), torch.zeros(4 + 2 * rank)),
        "reduce_scatter_tensor sizes": lambda: reduce_scatter_tensor(torch.ones(4 + 2 * rank), torch.zeros(2 + rank)),
    },
    "agree": {
        "all_reduce shapes": lambda: all_reduce(torch.arange(6.).reshape((2, 3) if rank == 0 else (3, 2)) + rank),
        "broadcast shapes": lambda: broadcast(torch.arange(6.).reshape((6,) if rank == 0 else (2, 3)) + rank),
        "recv larger": lambda: p2p(torch.ones(3), torch.zeros(5)),
        "recv other dtype": lambda: p2p(torch.ones(2, dtype=torch.float64), torch.zeros(4)),
    },
    "vfw": {
        "recv smaller": lambda: p2p(torch.ones(5), torch.zeros(3)),
        "all_to_all_single splits": lambda: all_to_all_single(torch.zeros(sum(RECEIVE_SPLITS[rank])),
                                                              torch.ones(sum(SEND_SPLITS[rank])),
                                                              RECEIVE_SPLITS[rank], SEND_SPLITS[rank]),
        "all_to_all_single dtypes": lambda: all_to_all_single(torch.zeros(2, dtype=other), torch.ones(2, dtype=other)),
        "all_to_all_single agreeing": lambda: all_to_all_single(torch.zeros(2), torch.tensor([rank, rank + 0.5])),
    },
}[sys.argv[3]]
results = {name: outcome(case) for name, case in cases.items()}
dist.barrier()  # the group still works after every rank raised
with open(f"{sys.argv[2]}/{rank}.json", "w") as f:
    json.dump(results, f, indent=1)
dist.destroy_process_group()
