"""torch.distributed subgroups (``new_group(ranks)``, ``new_subgroups``, ``new_subgroups_by_enumeration``) with 3
processes, for vfw (its launcher) and real torch (torchrun) alike: ``argv[1]`` names the module (``vfw.torch`` or
``torch``); each rank writes what it saw (results, exceptions, warnings) to ``argv[2]/<rank>.json``, which
test_torch_subgroups.py compares rank by rank.
"""

import importlib
import json
import sys

from script_outcome import outcome  # (the script's folder is on sys.path)

torch = importlib.import_module(sys.argv[1])
dist = torch.distributed


def tolist(tensors):
    return [t.tolist() for t in tensors]


# -- a group of ranks 0 and 2: members' collectives, rank 1 outside it ------------------------------------------
dist.init_process_group("gloo")
rank = dist.get_rank()
res = {}
g = dist.new_group([0, 2])
res["g"] = repr(g) if isinstance(g, int) else "a group"
res["get_rank"] = outcome(lambda: dist.get_rank(g))
res["ws"] = outcome(lambda: dist.get_world_size(g))
res["global"] = outcome(lambda: dist.get_global_rank(g, 1))
res["grouprank"] = outcome(lambda: dist.get_group_rank(g, 2))
res["grouprank1"] = outcome(lambda: dist.get_group_rank(g, 1))
res["pgranks"] = outcome(lambda: dist.get_process_group_ranks(g))
t = torch.tensor([float(rank + 1)] * 3)
res["ar"] = outcome(lambda: dist.all_reduce(t, group=g))
res["ar_t"] = t.tolist()
t = torch.tensor([float(rank + 1)])
res["bc"] = outcome(lambda: dist.broadcast(t, src=2, group=g))
res["bc_t"] = t.tolist()
t = torch.tensor([float(rank + 1)])
res["bc_bad"] = outcome(lambda: dist.broadcast(t, src=1, group=g))
res["bc_bad_t"] = t.tolist()
t = torch.tensor([float(rank + 1)])
res["bc_gsrc"] = outcome(lambda: dist.broadcast(t, group_src=1, group=g))
res["bc_gsrc_t"] = t.tolist()
out = [torch.zeros(2) for _ in range(2)]
res["ag"] = outcome(lambda: dist.all_gather(out, torch.tensor([rank, 10. * rank]), group=g))
res["ag_t"] = tolist(out)
res["bar"] = outcome(lambda: dist.barrier(group=g))
res["backend"] = outcome(lambda: dist.get_backend(g))
ol = [None, None]
res["ago"] = outcome(lambda: dist.all_gather_object(ol, {"r": rank}, group=g))
res["ago_v"] = repr(ol)
res["pgrank"] = outcome(lambda: g.rank())
res["pgsize"] = outcome(lambda: g.size())

# -- new_subgroups_by_enumeration, new_group's checks, unsorted ranks, destroying a subgroup ------------------
res["ns"] = outcome(lambda: dist.new_subgroups(group_size=2))
cur, subs = dist.new_subgroups_by_enumeration([[0, 1], [2]])
res["nse_rank"] = dist.get_rank(cur)
res["nse_ws"] = dist.get_world_size(cur)
res["nse_len"] = len(subs)
res["nse_ranks"] = [outcome(lambda s=s: dist.get_process_group_ranks(s)) for s in subs]
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t, group=cur)
res["nse_ar"] = t.tolist()
res["nse_bad"] = outcome(lambda: dist.new_subgroups_by_enumeration([[0, 1], [1, 2]]))
res["ng_dup"] = outcome(lambda: dist.new_group([0, 0, 2]))
res["ng_bad"] = outcome(lambda: dist.new_group([0, 5]))
res["ng_unsorted"] = outcome(lambda: dist.get_process_group_ranks(dist.new_group([2, 0])))
g2 = dist.new_group([2, 0])
res["g2_rank"] = dist.get_rank(g2)
t = torch.tensor([float(rank + 1)])
res["g2_bc"] = outcome(lambda: dist.broadcast(t, src=2, group=g2))
res["g2_bc_t"] = t.tolist()
res["destroy"] = outcome(lambda: dist.destroy_process_group(g))
res["after_destroy_rank"] = outcome(lambda: dist.get_rank(g))

# -- a group of ranks 1 and 2: rooted collectives, point-to-point, objects, DDP --------------------------------
g12 = dist.new_group([1, 2])
if rank in (1, 2):
    t = torch.tensor([float(rank * 10)])
    dist.reduce(t, dst=2, group=g12)
    res["reduce"] = t.tolist()
    out = [torch.zeros(1), torch.zeros(1)] if rank == 1 else None
    dist.gather(torch.tensor([float(rank)]), out, dst=1, group=g12)
    res["gather"] = None if out is None else tolist(out)
    t = torch.zeros(2)
    dist.scatter(t, [torch.tensor([1., 2.]), torch.tensor([3., 4.])] if rank == 2 else None, src=2, group=g12)
    res["scatter"] = t.tolist()
    res["gather_default"] = outcome(lambda: dist.gather(torch.tensor([1.]), None, group=g12))  # global rank 0
    t = torch.zeros(1)
    if rank == 1:
        res["send"] = outcome(lambda: dist.send(torch.tensor([5.]), dst=2, group=g12))
        res["recv_any"] = outcome(lambda: dist.recv(t, group=g12))
        res["recv_any_t"] = t.tolist()
        work = dist.irecv(t, group_src=1, group=g12)
        work.wait()
        res["irecv_t"] = t.tolist()
        res["send_gdst"] = outcome(lambda: dist.send(torch.tensor([9.]), group_dst=1, group=g12))
    else:
        res["recv"] = outcome(lambda: dist.recv(t, src=1, group=g12))
        res["recv_t"] = t.tolist()
        dist.send(torch.tensor([7.]), dst=1, group=g12)
        dist.send(torch.tensor([8.]), dst=1, group=g12)
        res["recv_g"] = outcome(lambda: dist.recv(t, group_src=0, group=g12))
        res["recv_g_t"] = t.tolist()
    t = torch.zeros(1)
    ops = [dist.P2POp(dist.isend, torch.tensor([float(rank)]), 3 - rank, group=g12),
           dist.P2POp(dist.irecv, t, 3 - rank, group=g12)]
    for work in dist.batch_isend_irecv(ops):
        work.wait()
    res["p2p"] = t.tolist()
    objects = [None] if rank == 1 else ["x"]
    dist.broadcast_object_list(objects, src=2, group=g12)
    res["bol"] = objects
    res["bol_default"] = outcome(lambda: dist.broadcast_object_list([1], group=g12))
    out = torch.zeros(2)
    dist.all_to_all_single(out, torch.tensor([rank, rank + .5]), group=g12)
    res["a2a"] = out.tolist()
    torch.manual_seed(rank)
    model = torch.nn.Linear(3, 2)
    ddp = torch.nn.parallel.DistributedDataParallel(model, process_group=g12)  # rank 1's weights win
    ddp(torch.arange(6.).reshape(2, 3) * (rank + 1)).sum().backward()
    res["ddp_w"] = model.weight.flatten().tolist()
    res["ddp_g"] = model.weight.grad.flatten().tolist()
    zero_class = importlib.import_module(sys.argv[1] + ".distributed.optim").ZeroRedundancyOptimizer
    zero = zero_class(model.parameters(), optimizer_class=torch.optim.SGD, process_group=g12, lr=0.5)
    zero.step()  # each of the 2 ranks steps its shard, then broadcasts it
    res["zero"] = [zero.rank, zero.global_rank, model.weight.flatten().tolist(), model.bias.tolist()]

# -- new_subgroups ------------------------------------------------------------------------------------------------
cur, subs = dist.new_subgroups(group_size=1)
res["ns1"] = [dist.get_rank(cur), dist.get_world_size(cur), len(subs)]
t = torch.tensor([float(rank)])
dist.all_reduce(t, group=cur)
res["ns1_ar"] = t.tolist()
cur, subs = dist.new_subgroups(group_size=3)
res["ns3"] = [dist.get_rank(cur), dist.get_world_size(cur), len(subs)]
res["ns0"] = outcome(lambda: dist.new_subgroups(group_size=0))
res["ns4"] = outcome(lambda: dist.new_subgroups(group_size=4))
cur, subs = dist.new_subgroups_by_enumeration([[0], [2]])
res["nse_none"] = repr(cur) if cur is None or isinstance(cur, int) else "a group"
dist.barrier()
with open(f"{sys.argv[2]}/{rank}.json", "w") as f:
    json.dump(res, f, indent=1)
dist.destroy_process_group()
