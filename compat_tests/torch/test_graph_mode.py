"""vfw.torch code traced with ``vfw.core.graph.function``: in-place writes and random draws replayed.

Each case is a function of ``(torch, *tensors)`` written once against the torch API.  It runs
eagerly in real torch 2.13, eagerly in vfw.torch and as a vfw graph (every optimization
level), call after call on fresh copies of the same inputs: results, the arguments (which the
code may write into) and captured state must agree.  vfw draws torch's numbers for a seed, so
random code is compared with real torch too.
"""

import functools

import numpy as np
import pytest

from compat_tests.torch.harness import real, vt
from vfw.core.errors import TraceError
from vfw.core.graph import function

LEVELS = (0, 1, 2, 3)


def inputs(i):
    rng = np.random.default_rng(i)
    return [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4,)).astype(np.float32)]


def as_numpy(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def leaves(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def run_calls(lib, fn, calls, seed, traced_level=None):
    """``fn(lib, *tensors)`` on the inputs of calls 0..calls-1 (after seeding): results and arguments after."""
    lib.manual_seed(seed)
    call = functools.partial(fn, lib)
    if traced_level is not None:
        call = function(call, opt_level=traced_level)
    out = []
    for i in range(calls):
        args = [lib.from_numpy(a) for a in inputs(i)]
        result = call(*args)
        out.append([as_numpy(r).copy() for r in leaves(result)] + [as_numpy(a).copy() for a in args])
    if traced_level is not None:
        assert call.tracing_count == 1
    return out


def check(fn, level, calls=4, seed=0, rtol=1e-6, atol=1e-6):
    want = run_calls(real, fn, calls, seed)
    eager = run_calls(vt, fn, calls, seed)
    graph = run_calls(vt, fn, calls, seed, level)
    for i, (w, e, g) in enumerate(zip(want, eager, graph)):
        for k, (wk, ek, gk) in enumerate(zip(w, e, g)):
            np.testing.assert_array_equal(gk, ek, err_msg=f"call {i}, value {k}: graph vs vfw eager")
            np.testing.assert_allclose(gk, wk, rtol=rtol, atol=atol, err_msg=f"call {i}, value {k}: vs torch")


# -- in-place writes --------------------------------------------------------------------------------------
def in_place_ops(torch, x, b):
    y = x * 2
    y.add_(b)
    y.relu_()
    y += 1
    y.mul_(b.abs())
    return y, y.sum()


def out_arguments(torch, x, b):
    out = torch.empty(3, 4)
    torch.add(x, b, out=out)
    resized = torch.empty(0)
    torch.mul(x, 2, out=resized)
    return out - resized


def item_assignment(torch, x, b):
    y = x.clone()
    y[0] = 5.0
    y[:, 1] = b[:3]
    y.masked_fill_(y > 1, 0.0)
    y[1, 2] += 10
    return y


def writes_through_views(torch, x, b):
    y = x + 0
    row, column, t = y[1], y[:, 2], y.t()
    row.add_(1)
    column.mul_(2)
    t[0].sub_(b[0])
    flat = y.view(-1)
    flat[::5] = -1.0
    return y, row, column, t, flat


def strided_views(torch, x, b):
    y = x.clone()
    y.diagonal().add_(b[:3])
    return y, y.unfold(1, 2, 1).sum((1, 2)), x.diagonal() * 2, y.flip(0)


def detached_alias(torch, x, b):
    y = x * 1
    alias = y.detach()
    alias.clamp_(min=0)
    return y


def writes_into_arguments(torch, x, b):
    x.mul_(2)
    x[:, 0] = b[:3]
    b.add_(1)
    return x.sum()


def squeeze_and_copy(torch, x, b):
    y = x.unsqueeze(0).clone()
    y.squeeze_(0)
    y.copy_(b.expand(3, 4))
    x.copy_(y * 3)
    return y


@pytest.mark.parametrize("fn", [in_place_ops, out_arguments, item_assignment, writes_through_views, strided_views,
                                detached_alias, writes_into_arguments, squeeze_and_copy], ids=lambda f: f.__name__)
@pytest.mark.parametrize("level", LEVELS)
def test_in_place_writes(fn, level):
    check(fn, level)


# -- captured state: buffers and parameters ----------------------------------------------------------------
def state_of(lib):
    return {"count": lib.zeros(()), "buffer": lib.zeros(4), "weight": lib.ones(4, requires_grad=True)}


@pytest.mark.parametrize("level", LEVELS)
def test_captured_buffers_and_parameters_are_updated_on_every_call(level):
    states = {lib: state_of(lib) for lib in (real, vt)}

    def step(torch, x, b):
        state = states[torch]
        state["count"].add_(1)
        state["buffer"].mul_(0.5).add_(x.sum(0))
        with torch.no_grad():
            state["weight"].sub_(0.1 * state["buffer"])
        return (x * state["weight"]).sum() * state["count"]

    want = run_calls(real, step, 4, 0)
    eager_state = states[vt]
    eager = run_calls(vt, step, 4, 0)
    eager_values = [as_numpy(v).copy() for v in eager_state.values()]
    states[vt] = state_of(vt)
    graph = run_calls(vt, step, 4, 0, level)
    for w, e, g in zip(want, eager, graph):
        for wk, ek, gk in zip(w, e, g):
            np.testing.assert_array_equal(gk, ek)
            np.testing.assert_allclose(gk, wk, rtol=1e-6, atol=1e-6)  # float32 sums in another order
    for e, g, w in zip(eager_values, states[vt].values(), states[real].values()):
        np.testing.assert_array_equal(as_numpy(g), e)
        np.testing.assert_allclose(as_numpy(g), as_numpy(w), rtol=1e-6, atol=1e-6)


# -- random draws ----------------------------------------------------------------------------------------
def factories(torch, x, b):
    return (torch.rand(3, 4), torch.randn(2, 20), torch.randint(0, 7, (5,)), torch.randperm(6),
            torch.normal(x, b.abs().expand(3, 4)), torch.rand_like(x))


def in_place_samplers(torch, x, b):
    y = torch.empty(3, 4)
    return (y.uniform_(-2, 3).clone(), y.normal_(1, 2).clone(), y.exponential_().clone(), y.random_(0, 9).clone(),
            y.bernoulli_(0.3).clone(), torch.bernoulli(x.sigmoid()))


def dropout(torch, x, b):
    f = torch.nn.functional
    return f.dropout(x, 0.4), f.dropout2d(x.view(1, 3, 2, 2), 0.5), f.dropout(x * b, 0.2, inplace=True)


def generator_state(torch, x, b):
    first = torch.rand(4)
    state = torch.get_rng_state()
    again = torch.rand(4)
    torch.set_rng_state(state)
    same = torch.rand(4)
    with torch.random.fork_rng():
        torch.manual_seed(11)
        reseeded = torch.randn(4)
    private = torch.Generator().manual_seed(3)
    return first, again, same, reseeded, torch.rand(4), torch.rand(4, generator=private), x + torch.randn(3, 4)


@pytest.mark.parametrize("fn", [factories, in_place_samplers, dropout, generator_state], ids=lambda f: f.__name__)
@pytest.mark.parametrize("level", LEVELS)
def test_random_draws_are_fresh_on_every_call_and_torchs(fn, level):
    check(fn, level, seed=5, rtol=1e-5, atol=1e-6)


def test_random_draws_of_a_graph_differ_from_call_to_call():
    g = function(lambda: vt.rand(100) + vt.nn.functional.dropout(vt.ones(100), 0.5))
    first, second, third = g(), g(), g()
    assert not np.array_equal(second.numpy(), third.numpy()) and not np.array_equal(first.numpy(), second.numpy())


# -- a training step -----------------------------------------------------------------------------------------
def make_model(lib):
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(inplace=True), lib.nn.Dropout(0.3),
                              lib.nn.Linear(8, 2))
    rng = np.random.default_rng(7)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
    return model


def sgd_step(lib, model, x, y):
    params = list(model.parameters())
    loss = ((model(x) - y) ** 2).mean()
    grads = lib.autograd.grad(loss, params)
    with lib.no_grad():
        for p, g in zip(params, grads):
            p.sub_(0.1 * g)
    return loss.detach()


@pytest.mark.parametrize("level", LEVELS)
def test_traced_training_step_with_dropout_matches_eager_and_torch(level):
    rng = np.random.default_rng(1)
    batches = [(rng.standard_normal((6, 4)).astype(np.float32), rng.standard_normal((6, 2)).astype(np.float32))
               for _ in range(4)]
    losses, models = {}, {}
    for name, lib, level_ in (("torch", real, None), ("eager", vt, None), ("graph", vt, level)):
        model = models[name] = make_model(lib)
        step = functools.partial(sgd_step, lib, model)
        if level_ is not None:
            step = function(step, opt_level=level_)
        lib.manual_seed(3)
        losses[name] = [float(step(lib.from_numpy(x), lib.from_numpy(y))) for x, y in batches]
    assert losses["graph"] == losses["eager"]
    np.testing.assert_allclose(losses["graph"], losses["torch"], rtol=1e-5)
    for g, e, w in zip(*(models[n].parameters() for n in ("graph", "eager", "torch"))):
        np.testing.assert_array_equal(as_numpy(g), as_numpy(e))
        np.testing.assert_allclose(as_numpy(g), as_numpy(w), rtol=1e-4, atol=1e-6)


# -- what graphs cannot replay ---------------------------------------------------------------------------------
def test_optimizer_steps_and_backward_are_refused_with_a_clear_error():
    model = make_model(vt)
    optimizer = vt.optim.SGD(model.parameters(), lr=0.1)

    def with_backward(x):
        loss = model(x).sum()
        loss.backward()
        return loss

    def with_optimizer(x):
        for p in model.parameters():
            p.grad = vt.ones_like(p)
        optimizer.step()
        return x * 1

    x = vt.ones(2, 4)
    with pytest.raises(TraceError, match=r"backward\(\) accumulates gradients into .grad"):
        function(with_backward)(x)
    before = [p.detach().clone() for p in model.parameters()]
    with pytest.raises(TraceError, match="computing in numpy .a torch.optim step"):
        function(with_optimizer)(x)
    for p, q in zip(model.parameters(), before):  # the tracing call ran eagerly: one step was taken
        np.testing.assert_allclose(as_numpy(p), as_numpy(q) - 0.1, rtol=1e-6)


# -- values computed from the data (once numpy in the frontend, frozen by traces) -------------------------------
def logical_reductions(torch, x, b):
    return ((x > 0).all(1), (x > -0.5).any(0), (x > 0).all(), (x.round() * b).any(), torch.count_nonzero(x > 0, dim=1),
            torch.count_nonzero(x.round()), (x > 0).to(torch.uint8).all(1), torch.logaddexp(x, b),
            torch.logaddexp2(x, b * 40))


def selections(torch, x, b):
    with_nan = x.masked_fill(x < -0.5, float("nan"))
    return (x.median(), x.median(1), x.nanmedian(0), with_nan.median(), with_nan.nanmedian(), with_nan.median(1),
            with_nan.nanmedian(1, keepdim=True), x.mode(1), x.kthvalue(2, 1), torch.quantile(x, 0.3, dim=1),
            torch.nanquantile(with_nan, torch.tensor([0.25, 0.5]), dim=1, keepdim=True))


def integer_and_bool_pointwise(torch, x, b):
    ints = (x * 3).long()
    small = (x.abs() * 10).to(torch.uint8)
    return ((x > 0).sign(), (x > 0).sgn(), ints.round(), ints.floor(), ints.ceil(), ints.trunc(), small.relu(),
            torch.signbit(x * b), torch.signbit(ints), torch.signbit(x.half() * b.half()), torch.nan_to_num(ints))


def orders_among_ties(torch, x, b):
    ties = (x * 1.5).round().repeat(1, 6)  # rows of 24 with ties: torch's introsort order, replayed
    return (torch.sort(ties), torch.sort(ties, dim=0, descending=True), torch.topk(ties, 5), torch.topk(ties, 3, 0),
            torch.topk(ties, 4, largest=False, sorted=False), torch.mode(ties), torch.argsort(ties, stable=True))


def counting(torch, x, b):
    halves = (x * 2).round()
    return (torch.unique(halves), *torch.unique(halves, return_inverse=True, return_counts=True),
            *torch.unique_consecutive(halves.reshape(-1), return_counts=True), torch.unique(halves, dim=1),
            torch.histc(x, bins=5), torch.histc(x, 4, min=-1, max=1))


def mask_and_index_writes(torch, x, b):
    picks = (b.abs() * 10).long() % 3
    y = x.clone()
    y[x > 0] = 0.5
    y[:, b > 0] = -1.0
    z = x.clone()
    z[x < 0] = x[x < 0] * 2
    z[picks] = x[picks] * 3
    w = torch.zeros(3, 4).index_put_((picks,), torch.tensor(2.0), accumulate=True)
    v = x.clone()
    v[picks, picks + 1] = 7.0
    u = x.masked_scatter(x > 0, b.repeat(3) * 10)
    t = x.clone().put_(picks - 2, b, accumulate=True)
    return (y, z, w, v, u, t, x[x > 0.2], x[x > 0].sum(), x[picks[:1], b > 0], torch.masked_select(x, x < 0),
            torch.nonzero(x > 0), torch.nonzero(b > 0, as_tuple=True)[0], torch.where(x > 0)[1])


@pytest.mark.parametrize("fn", [logical_reductions, selections, orders_among_ties, integer_and_bool_pointwise,
                                counting, mask_and_index_writes], ids=lambda f: f.__name__)
@pytest.mark.parametrize("level", LEVELS)
def test_values_computed_from_the_data_follow_each_call(fn, level):
    check(fn, level, rtol=1e-5)
