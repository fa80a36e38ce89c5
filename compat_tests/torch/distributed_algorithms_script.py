"""Run by test_distributed_algorithms.py in several processes, once with real torch (gloo) and once with
vfw.torch (``vfw.mock("torch")``): differentiable collectives (torch.distributed.nn), the Join context manager
with DDP on uneven inputs, ZeroRedundancyOptimizer and a few collective conformance cases.  Each rank prints one
JSON line per check; the test compares the two runs line for line.

``python script.py torch|vfw [section ...]``
"""

import copy
import json
import sys
import warnings

LIB = sys.argv[1]
if LIB == "vfw":
    import vfw

    MOCK = vfw.mock("torch")  # kept: the mock ends when it is collected
    MOCK.__enter__()
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

warnings.simplefilter("ignore")
dist.init_process_group("gloo")
RANK, WORLD = dist.get_rank(), dist.get_world_size()


def report(name, value):
    sys.stdout.write(json.dumps({"rank": RANK, "check": name, "value": value}) + "\n")
    sys.stdout.flush()


def values(t):
    """A tensor (or a tuple/list of them) as nested lists (the test compares them with a float32 tolerance)."""
    if isinstance(t, (list, tuple)):
        return [values(x) for x in t]
    if t is None:
        return None
    return t.detach().double().numpy().tolist()


def outcome(fn):
    try:
        return ["ok", fn()]
    except Exception as e:  # the error type and first line are what is compared
        return [type(e).__name__, str(e).splitlines()[0] if str(e) else ""]


def data(shape, salt=0):
    g = torch.Generator().manual_seed(100 * RANK + salt)
    return torch.randn(*shape, generator=g)


# -- torch.distributed.nn.functional ------------------------------------------------------------------------------
def check_nn_functional():
    import torch.distributed.nn.functional as F  # noqa: N812

    x = data((2, 3), 1).requires_grad_()
    parts = F.all_gather(x)
    weights = [torch.full((2, 3), float(r + 1 + RANK)) for r in range(WORLD)]
    (sum((p * w).sum() for p, w in zip(parts, weights))).backward()
    report("all_gather", [values(parts), values(x.grad), type(parts).__name__, parts[0].grad_fn is not None])

    # a contrastive loss over the global batch: every rank's embeddings, logits, cross entropy
    emb = data((3, 4), 2).requires_grad_()
    everyone = torch.cat(F.all_gather(torch.nn.functional.normalize(emb, dim=1)))
    logits = torch.nn.functional.normalize(emb, dim=1) @ everyone.t() / 0.1
    labels = torch.arange(3) + 3 * RANK
    loss = torch.nn.functional.cross_entropy(logits, labels)
    loss.backward()
    report("contrastive", [loss.item(), values(emb.grad)])

    y = data((3,), 3).requires_grad_()
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX):
        y.grad = None
        out = F.all_reduce(y, op=op)
        (out * (RANK + 2)).sum().backward()
        report(f"all_reduce {op}", [values(out), values(y.grad), values(y)])

    z = data((2,), 4).requires_grad_()
    out = F.broadcast(z, src=WORLD - 1)
    (out * (RANK + 1)).sum().backward()
    report("broadcast", [values(out), values(z.grad)])

    z.grad = None
    out = F.reduce(z, dst=0)
    (out * (RANK + 1)).sum().backward()
    report("reduce", [values(out) if RANK == 0 else None, values(z.grad)])

    z.grad = None
    got = F.gather(z, dst=1)
    sum((g * (i + 1) * (RANK + 1)).sum() for i, g in enumerate(got)).backward()
    report("gather", [values(got), values(z.grad)])

    pieces = [data((2,), 10 + r).requires_grad_() for r in range(WORLD)]
    out = F.scatter(pieces, src=0)
    (out * (RANK + 3)).sum().backward()
    report("scatter", [values(out), values([p.grad for p in pieces])])

    pieces = [data((2, 2), 20 + r).requires_grad_() for r in range(WORLD)]
    out = F.reduce_scatter(torch.zeros(2, 2), pieces)
    (out * (RANK + 1)).sum().backward()
    report("reduce_scatter", [values(out), values([p.grad for p in pieces])])

    pieces = [data((2,), 30 + r).requires_grad_() for r in range(WORLD)]  # gloo's all_to_all: one shape
    outs = F.all_to_all([torch.zeros(2) for _ in range(WORLD)], pieces)
    sum((o * (i + 1)).sum() for i, o in enumerate(outs)).backward()
    report("all_to_all", [values(outs), values([p.grad for p in pieces])])

    rows = data((WORLD * 2, 3), 40).requires_grad_()
    out = F.all_to_all_single(torch.zeros(WORLD * 2, 3), rows)
    (out * torch.arange(WORLD * 2.0).reshape(-1, 1)).sum().backward()
    report("all_to_all_single", [values(out), values(rows.grad)])

    with warnings.catch_warnings(record=True) as caught:  # torch deprecates some of them (FutureWarning)
        warnings.simplefilter("always")
        z = data((2,), 5)
        F.all_gather(z), F.all_reduce(z), F.broadcast(z, 0), F.reduce(z, 0), F.gather(z), F.scatter([z] * WORLD)
        F.reduce_scatter(torch.zeros(2), [z] * WORLD), F.all_to_all([torch.zeros(2)] * WORLD, [z] * WORLD)
        F.all_to_all_single(torch.zeros(2 * WORLD), z.repeat(WORLD))
    report("deprecations", [[w.category.__name__, str(w.message)] for w in caught])

    w = data((2,), 50).requires_grad_()
    out = F._all_gather_base(torch.zeros(2 * WORLD), w)
    report("_all_gather_base", [values(out), outcome(lambda: out.sum().backward())])


# -- Join and DDP on uneven inputs ---------------------------------------------------------------------------------
def make_model(unused=False):
    torch.manual_seed(0)
    layers = [torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Tanh(), torch.nn.Linear(4, 2)]
    if unused:
        layers.append(torch.nn.Linear(2, 2))  # never called: find_unused_parameters

        class Partial(torch.nn.Sequential):
            def forward(self, x):
                for layer in list(self)[:-1]:
                    x = layer(x)
                return x

        return Partial(*layers)
    return torch.nn.Sequential(*layers)


def train_uneven(steps, label, unused=False, accumulate=False, hook=False, **join_kwargs):
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: N817  (the usual name)

    ddp = DDP(make_model(unused), find_unused_parameters=unused)
    if hook:  # a joined process runs the hook on zeros
        ddp.register_comm_hook(None, default_hooks.allreduce_hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    grads = []
    result = None
    try:
        with ddp.join(**join_kwargs):
            for i in range(steps[RANK]):
                x = data((4, 3), 60 + i)
                if accumulate and i % 2 == 0:  # every other batch accumulates locally (no all-reduce to shadow)
                    with ddp.no_sync():
                        ddp(x).pow(2).mean().backward()
                    continue
                ddp(x).pow(2).mean().backward()
                grads.append(values(ddp.module[0].weight.grad))
                opt.step()
                opt.zero_grad()
        result = "done"
    except RuntimeError as e:
        result = str(e)
    report(label, [result, grads, values(list(ddp.module.parameters())), values(list(ddp.module.buffers()))])


class CounterHook:  # built in check_join (it needs torch's JoinHook class)
    pass


def check_join():
    from torch.distributed.algorithms.join import Join, Joinable, JoinHook

    steps = [3 + r for r in range(WORLD)]  # rank r has 3 + r batches
    train_uneven(steps, "ddp join")
    train_uneven(steps, "ddp join divide_by_active", divide_by_initial_world_size=False)
    train_uneven(list(reversed(steps)), "ddp join rank 0 last")
    train_uneven(steps, "ddp join unused", unused=True)
    train_uneven(steps, "ddp join throw", throw_on_early_termination=True)
    train_uneven([2] * WORLD, "ddp join even")
    train_uneven([4 + 2 * r for r in range(WORLD)], "ddp join no_sync", accumulate=True)
    train_uneven(steps, "ddp join comm hook", hook=True)

    class Hook(JoinHook):
        def __init__(self, counter, sync_max_count):
            self.counter, self.sync_max_count = counter, sync_max_count

        def main_hook(self):
            dist.all_reduce(torch.zeros(1))  # shadows the counter's all-reduce

        def post_hook(self, is_last_joiner):
            if self.sync_max_count:
                rank = self.counter.common_rank(RANK, is_last_joiner)
                if RANK == rank:
                    self.counter.max_count = self.counter.count.clone()
                dist.broadcast(self.counter.max_count, src=rank)

    class Counter(Joinable):
        def __init__(self):
            super().__init__()
            self.count, self.max_count = torch.zeros(1), torch.zeros(1)

        def __call__(self):
            Join.notify_join_context(self)
            t = torch.ones(1)
            dist.all_reduce(t)
            self.count += t

        def join_hook(self, **kwargs):
            return Hook(self, kwargs.get("sync_max_count", False))

        @property
        def join_device(self):
            return torch.device("cpu")

        @property
        def join_process_group(self):
            return dist.group.WORLD

        def common_rank(self, rank, to_consider):
            common = torch.tensor([rank if to_consider else -1])
            dist.all_reduce(common, op=dist.ReduceOp.MAX)
            return common.item()

    counter = Counter()
    with Join([counter], sync_max_count=True):
        for _ in range(5 + 2 * RANK):
            counter()
    second = Counter()
    with Join([counter, second], enable=True):
        for _ in range(2 + RANK):
            counter()
            second()
    report("join counter", [values(counter.count), values(counter.max_count), values(second.count)])

    class NotCalled(Joinable):
        def __init__(self):  # forgets Joinable.__init__
            pass

        def join_hook(self, **kwargs):
            return JoinHook()

        join_device = property(lambda self: torch.device("cpu"))
        join_process_group = property(lambda self: None)

    report("join errors", [outcome(lambda: Join([])), outcome(lambda: Join.notify_join_context(NotCalled())),
                           outcome(lambda: Join([Counter()], enable=False).__exit__(None, None, None)),
                           outcome(lambda: Joinable()), isinstance(torch.nn.parallel.DistributedDataParallel(
                               torch.nn.Linear(1, 1)), Joinable)])


# -- ZeroRedundancyOptimizer --------------------------------------------------------------------------------------
def check_zero():
    from torch.distributed.optim import ZeroRedundancyOptimizer
    from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: N817  (the usual name)

    def model():
        torch.manual_seed(1)
        return torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 3), torch.nn.ReLU(),
                                   torch.nn.Linear(3, 2))

    ddp = DDP(model())
    zero = ZeroRedundancyOptimizer(ddp.parameters(), torch.optim.Adam, lr=0.05, betas=(0.8, 0.9))
    report("zero partition", [[[list(p.shape) for p in g["params"]] for g in groups]
                              for groups in zero._partition_parameters()])
    for i in range(3):
        zero.zero_grad()
        ddp(data((4, 5), 70 + i)).pow(2).sum().backward()
        zero.step()
        if i == 1:
            zero.param_groups[0]["lr"] = 0.01  # as a scheduler would
    report("zero trained", [values(list(ddp.parameters())), sorted(len(s) for s in zero.optim.state.values()),
                            zero.param_groups[0]["lr"], zero.optim.param_groups[0]["lr"]])
    report("zero state_dict before", outcome(lambda: zero.state_dict()))
    zero.consolidate_state_dict(to=1)
    got = outcome(zero.state_dict)
    if got[0] == "ok":
        sd = got[1]
        got = [sorted(sd["state"]), {k: values(v["exp_avg"]) for k, v in sd["state"].items()},
               [v["step"].item() for v in sd["state"].values()],
               [{k: v for k, v in g.items()} for g in sd["param_groups"]]]
    report("zero state_dict", got)

    # a fresh optimizer loads the consolidated state (sent from rank 1) and keeps training identically
    sd = [zero.state_dict() if RANK == 1 else None]
    dist.broadcast_object_list(sd, src=1)
    sd = copy.deepcopy(sd)  # as saved to a file: rank 1's dict holds its optimizer's live state tensors
    other = DDP(model())
    with torch.no_grad():
        for a, b in zip(other.parameters(), ddp.parameters()):
            a.copy_(b)
    loaded = ZeroRedundancyOptimizer(other.parameters(), torch.optim.Adam, lr=0.5)
    loaded.load_state_dict(sd[0])
    for net, opt in ((ddp, zero), (other, loaded)):
        opt.zero_grad()
        net(data((4, 5), 80)).pow(2).sum().backward()
        opt.step()
    report("zero loaded", [values(list(other.parameters())), values(list(ddp.parameters())),
                           [g["lr"] for g in loaded.param_groups], [sd[0]["state"][k] is None for k in sd[0]["state"]]])

    # a new parameter group, SGD with a closure, parameter groups of their own hyperparameters
    net = model()
    layers = [m for m in net if isinstance(m, torch.nn.Linear)]
    opt = ZeroRedundancyOptimizer([{"params": layers[0].parameters()}, {"params": layers[1].parameters(), "lr": 0.2}],
                                  torch.optim.SGD, lr=0.1, momentum=0.5)
    opt.add_param_group({"params": layers[2].parameters(), "lr": 0.3})

    def closure():
        opt.zero_grad()
        loss = net(data((3, 5), 90)).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    report("zero groups", [loss.item(), values(list(net.parameters())),
                           [[[list(p.shape) for p in g["params"]] for g in groups]
                            for groups in opt._partition_parameters()],
                           [len(g["params"]) for g in opt.optim.param_groups]])

    # uneven inputs: DDP and ZeRO in one join context
    ddp = DDP(model())
    zero = ZeroRedundancyOptimizer(ddp.parameters(), torch.optim.Adam, lr=0.05)
    from torch.distributed.algorithms.join import Join

    with Join([ddp, zero]):
        for i in range(2 + RANK):
            zero.zero_grad()
            ddp(data((4, 5), 100 + i)).pow(2).sum().backward()
            zero.step()
    report("zero join", values(list(ddp.parameters())))
    report("zero errors", [outcome(lambda: ZeroRedundancyOptimizer([], torch.optim.SGD, lr=0.1)),
                           outcome(lambda: ZeroRedundancyOptimizer(torch.zeros(2), torch.optim.SGD, lr=0.1)),
                           outcome(lambda: ZeroRedundancyOptimizer([1, 2], torch.optim.SGD, lr=0.1)),
                           outcome(lambda: ZeroRedundancyOptimizer([{"lr": 1}], torch.optim.SGD, lr=0.1)),
                           outcome(lambda: ZeroRedundancyOptimizer(
                               [torch.zeros(1, requires_grad=True), torch.zeros(1, dtype=torch.float64)],
                               torch.optim.SGD, lr=0.1))])


# -- conformance of a few collectives -----------------------------------------------------------------------------
def check_conformance():
    from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: N817  (the usual name)

    # reduce: what the non-destination ranks are left with (gloo's ring), small to large, several ops and dtypes
    for n in (1, 2, 5, 7, 13, 4099, 100_003):
        for dst in range(WORLD):
            t = data((n,), 110 + n)
            dist.reduce(t, dst=dst)
            report(f"reduce n={n} dst={dst}", values(t[:50]) + values(t[-50:]) + [t.double().sum().item()])
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN, dist.ReduceOp.MAX, dist.ReduceOp.BAND,
               dist.ReduceOp.BOR, dist.ReduceOp.BXOR):
        t = torch.arange(11) * (RANK + 2) + RANK
        report(f"reduce int {op}", [outcome(lambda t=t, op=op: dist.reduce(t, dst=WORLD - 1, op=op)), t.tolist()])
    for n in (1, 5):
        t = torch.arange(float(n)) + 10 ** RANK
        dist.reduce(t, dst=WORLD - 1, op=dist.ReduceOp.AVG)
        report(f"reduce avg n={n}", [values(t), t._version])
    t = torch.ones(3, dtype=torch.int64)
    report("reduce avg int", [outcome(lambda: dist.reduce(t, dst=0, op=dist.ReduceOp.AVG)), t.tolist()])
    t = data((9,), 120).double()
    dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)
    report("reduce float64 max", values(t))
    t = data((2, 5), 121).requires_grad_()
    y = t * 2
    work = dist.reduce(y.detach(), dst=0, async_op=True)
    report("reduce async", [work.wait(), values(work.get_future().wait()), y._version])

    # all_gather_into_tensor: gloo's dtype and chunk-shape checks
    one = torch.ones(2)
    report("all_gather_into_tensor", [
        outcome(lambda: dist.all_gather_into_tensor(torch.zeros(2 * WORLD, dtype=torch.float64), one)),
        outcome(lambda: dist.all_gather_into_tensor(torch.zeros(2 * WORLD, dtype=torch.int64), one)),
        outcome(lambda: dist.all_gather_into_tensor(torch.zeros(2 * WORLD, dtype=torch.float16), one)),
        outcome(lambda: dist.all_gather_into_tensor(torch.zeros(WORLD, 2), one)),
        outcome(lambda: dist.all_gather_into_tensor(torch.zeros(WORLD, 1, 2), torch.ones(1, 2))),
        outcome(lambda: dist.all_gather_into_tensor(torch.zeros(3), one)),
        outcome(lambda: dist.all_gather_into_tensor(torch.zeros(WORLD), torch.tensor(1.0 + RANK))),
        (lambda out: (dist.all_gather_into_tensor(out, torch.full((2, 3), float(RANK))), values(out))[1])(
            torch.zeros(2 * WORLD, 3))])

    # DDP on a CPU module: device_ids / output_device
    linear = torch.nn.Linear(2, 2)
    report("ddp devices", [outcome(lambda: DDP(linear, device_ids=[0])),
                           outcome(lambda: DDP(linear, device_ids=[torch.device("cpu")])),
                           outcome(lambda: DDP(linear, output_device=1)),
                           outcome(lambda: type(DDP(linear, device_ids=[])).__name__),
                           outcome(lambda: type(DDP(linear, output_device=0)).__name__)])


def check_monitored_barrier():
    """Last: after a failed monitored barrier torch's gloo group is unusable (the job ends here)."""
    import datetime
    import os
    import time

    dist.monitored_barrier(timeout=datetime.timedelta(seconds=30))
    if RANK == 0:
        report("monitored_barrier", outcome(lambda: dist.monitored_barrier(timeout=datetime.timedelta(seconds=1),
                                                                           wait_all_ranks=WORLD > 2)))
    elif RANK == 1 and WORLD > 2:  # arrives in time; the last rank does not
        try:
            dist.monitored_barrier(timeout=datetime.timedelta(seconds=1))
        except RuntimeError:
            pass
    else:
        time.sleep(3)
        if LIB == "vfw":  # vfw's group goes on: the late rank completes the barrier the others gave up on
            dist.monitored_barrier(timeout=datetime.timedelta(seconds=30))
    sys.stdout.flush()
    if LIB == "torch":  # (vfw ends as usual below)
        os._exit(0)


SECTIONS = {"nn": check_nn_functional, "join": check_join, "zero": check_zero, "conformance": check_conformance,
            "monitored_barrier": check_monitored_barrier}

for section in sys.argv[2:] or SECTIONS:
    SECTIONS[section]()
dist.barrier()
dist.destroy_process_group()
