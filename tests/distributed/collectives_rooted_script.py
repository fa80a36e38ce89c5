"""torch.distributed's object collectives, gather/scatter, all_to_all, irecv from any rank and batched
point-to-point with 3 processes, for vfw (its launcher) and real torch (torchrun) alike: ``argv[1]`` names the
module, each rank writes what it saw to ``argv[2]/<rank>.json`` (test_torch_rooted_collectives.py compares them).
A check that fails on some ranks only runs on those (the others would wait for them in torch).
"""

import importlib
import json
import sys

from script_outcome import outcome  # (the script's folder is on sys.path)

torch = importlib.import_module(sys.argv[1])
dist = torch.distributed


dist.init_process_group("gloo")
rank, W = dist.get_rank(), 3
res = {}
# -- object collectives ---------------------------------------------------------------------------------------
ol = [rank, "a", None] if rank == 0 else [None] * 3
res["bol_len"] = outcome(lambda: dist.broadcast_object_list(ol, src=0))
res["bol_len_v"] = repr(ol)
ol = [None] * W
res["ago"] = outcome(lambda: dist.all_gather_object(ol, {"r": rank, "t": [1, 2]}))
res["ago_v"] = repr(ol)
ol = [None] * 4
res["ago_long"] = outcome(lambda: dist.all_gather_object(ol, rank))
res["ago_long_v"] = repr(ol)
gl = [None] * W if rank == 0 else None
res["go"] = outcome(lambda: dist.gather_object(("x", rank), gl, dst=0))
res["go_v"] = repr(gl)
gl = [None] * W
if rank != 1:
    res["go_nondst_list"] = outcome(lambda: dist.gather_object(rank, gl, dst=1))
res["go_nondst_list_v"] = repr(gl)
out = [None, "keep"]
res["so"] = outcome(lambda: dist.scatter_object_list(out, [10, 11, 12] if rank == 2 else None, src=2))
res["so_v"] = repr(out)
out = [None]
res["so_nonsrc_list"] = outcome(lambda: dist.scatter_object_list(out, [20, 21, 22], src=1))
res["so_nonsrc_list_v"] = repr(out)
# -- gather and scatter ----------------------------------------------------------------------------------------
gl = [torch.zeros(2) for _ in range(W)] if rank == 1 else None
res["g"] = outcome(lambda: dist.gather(torch.tensor([rank, rank + .5]), gl, dst=1))
res["g_v"] = None if gl is None else [g.tolist() for g in gl]
gl = [torch.zeros(3) for _ in range(W)] if rank == 1 else None
if rank == 1:
    res["g_badshape"] = outcome(lambda: dist.gather(torch.tensor([rank, rank + .5]), gl, dst=1))
dist.barrier()
t = torch.zeros(2)
sl = [torch.tensor([k, k * 2.]) for k in range(W)] if rank == 0 else None
res["s"] = outcome(lambda: dist.scatter(t, sl, src=0))
res["s_v"] = t.tolist()
t = torch.zeros(2)
sl = [torch.ones(3) for k in range(W)] if rank == 0 else None
if rank == 0:
    res["s_badshape"] = outcome(lambda: dist.scatter(t, sl, src=0))
dist.barrier()
# -- all_to_all -------------------------------------------------------------------------------------------------
inp = [torch.full((k + 1,), float(rank * 10 + k)) for k in range(W)]
outl = [torch.zeros(rank + 1) for _ in range(W)]
res["a2a"] = outcome(lambda: dist.all_to_all(outl, inp))
res["a2a_v"] = [o.tolist() for o in outl]
outl = [torch.zeros(k + 1) for k in range(W)]  # one input shape, uneven outputs
res["a2a_out"] = outcome(lambda: dist.all_to_all(outl, [torch.ones(rank + 1)] * W))
res["a2a_reshaped"] = outcome(lambda: dist.all_to_all([torch.zeros(2, 1)] * W, [torch.ones(2)] * W))
outl = [torch.zeros(2) for _ in range(W)]
res["a2a_even"] = outcome(lambda: dist.all_to_all(outl, [torch.full((2,), rank * 10. + k) for k in range(W)]))
res["a2a_even_v"] = [o.tolist() for o in outl]
inp = torch.arange(6.) + rank * 100
out = torch.zeros(6)
res["a2as"] = outcome(lambda: dist.all_to_all_single(out, inp))
res["a2as_v"] = out.tolist()
insz = [[1, 2, 3], [3, 2, 1], [2, 2, 2]][rank]
outsz = [[[1, 2, 3], [3, 2, 1], [2, 2, 2]][s][rank] for s in range(W)]
inp = torch.arange(6.) + rank * 100
out = torch.zeros(sum(outsz))
res["a2as_split"] = outcome(lambda: dist.all_to_all_single(out, inp, outsz, insz))
res["a2as_split_v"] = out.tolist()
inp = torch.arange(12.).reshape(6, 2) + rank * 100
out = torch.zeros(6, 2)
res["a2as_2d"] = outcome(lambda: dist.all_to_all_single(out, inp))
res["a2as_2d_v"] = out.tolist()
dist.barrier()
# -- point-to-point -------------------------------------------------------------------------------------------
t = torch.zeros(1)
if rank == 0:
    ws = [dist.irecv(torch.zeros(1)) for _ in range(2)]
    got = []
    for w in ws:
        w.wait()
        got.append(w.source_rank())
    res["irecv_any"] = sorted(got)
else:
    dist.send(torch.tensor([float(rank)]), dst=0)
dist.barrier()
nxt, prv = (rank + 1) % W, (rank - 1) % W
a, b = torch.zeros(2), torch.zeros(2)
ops = [dist.P2POp(dist.irecv, a, prv), dist.P2POp(dist.isend, torch.tensor([rank, 1.]), nxt),
       dist.P2POp(dist.irecv, b, nxt), dist.P2POp(dist.isend, torch.tensor([rank, 2.]), prv)]
res["batch"] = outcome(lambda: [w.wait() for w in dist.batch_isend_irecv(ops)])
res["batch_v"] = [a.tolist(), b.tolist()]
res["batch_empty"] = outcome(lambda: dist.batch_isend_irecv([]))[0]  # (vfw says why)
res["p2pop_bad"] = outcome(lambda: dist.P2POp(dist.send, torch.zeros(1), 1))
res["send_self"] = outcome(lambda: dist.send(torch.zeros(1), dst=rank))
dist.barrier()
with open(f"{sys.argv[2]}/{rank}.json", "w") as f:
    json.dump(res, f, indent=1)
dist.destroy_process_group()
