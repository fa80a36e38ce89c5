"""Differential tests for nn modules: the same module in real torch and in vfw.torch, same weights.

``check_module(make, *inputs)`` builds ``make(lib)`` in both libraries, copies real torch's
parameters and buffers into the vfw module (so forward results do not depend on initialization),
runs both on the same inputs, and compares outputs, the gradients of float inputs and of every
parameter (from ``backward`` of a fixed random weighting of the outputs), and the buffers after the
call (running statistics).  ``check_init`` compares the initial parameters drawn with one seed.
"""

import numpy as np

from compat_tests.torch.harness import assert_same, convert, real, to_numpy, vt

LIBS = (real, vt)


def copy_state(src, dst):
    """Copy every parameter and buffer of torch module ``src`` into vfw module ``dst`` (by name)."""
    state = {k: vt.from_numpy(v.detach().numpy().copy()) for k, v in src.state_dict().items()}
    dst.load_state_dict(state)


def _outputs(out):
    if isinstance(out, (real.Tensor, vt.Tensor)):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _outputs(o)]
    return []


def run_pair(make, inputs, train=True, grad=True, seed=0, call=None):
    """Build both modules (vfw's with torch's weights), run them; returns ``[(module, out, inputs), ...]``."""
    results = []
    modules = []
    for lib in LIBS:
        lib.manual_seed(seed)
        modules.append(make(lib))
    copy_state(modules[0], modules[1])
    for lib, module in zip(LIBS, modules):
        module.train(train)
        xs = convert(lib, list(inputs), requires_grad=grad)
        lib.manual_seed(seed)
        out = call(module, *xs) if call is not None else module(*xs)
        results.append((module, out, xs))
    return results


def check_module(make, *inputs, train=True, grad=True, rtol=1e-5, atol=1e-6, call=None, seed=0):
    """Compare outputs, input/parameter gradients and buffers of ``make(lib)`` in both libraries.

    Parameters
    ----------
    make : callable
        ``make(lib) -> module`` (``lib`` is real torch or vfw.torch).
    *inputs : numpy arrays or other arguments
        Given to the module (arrays become tensors; float ones require grad when ``grad``).
    train : bool
        Training mode (batch norm statistics, dropout...).
    call : callable, optional
        ``call(module, *inputs)`` instead of ``module(*inputs)``.
    """
    pairs = run_pair(make, inputs, train, grad, seed, call)
    (m_ref, out_ref, x_ref), (m_got, out_got, x_got) = pairs
    assert_same(to_numpy(out_ref), to_numpy(out_got), rtol, atol, "output")
    assert_same(to_numpy(dict(m_ref.named_buffers())), to_numpy(dict(m_got.named_buffers())), rtol, atol, "buffers")
    if not grad:
        return pairs
    grads = []
    for (module, out, xs), lib in zip(pairs, LIBS):
        total = None
        for k, o in enumerate(_outputs(out)):
            if not o.requires_grad:
                continue
            w = np.random.default_rng(k).standard_normal(tuple(o.shape)).astype(str(o.dtype).replace("torch.", ""))
            term = (o * lib.from_numpy(w)).sum()
            total = term if total is None else total + term
        if total is not None:
            total.backward()
        grads.append(({name: p.grad for name, p in module.named_parameters()},
                      [x.grad for x in xs if isinstance(x, (real.Tensor, vt.Tensor)) and x.requires_grad]))
    assert_same(to_numpy(grads[0]), to_numpy(grads[1]), rtol * 10, atol * 10, "grads")
    return pairs


def check_init(make, seed=0):
    """The parameters and buffers ``make(lib)`` creates after ``manual_seed(seed)`` are torch's."""
    states = []
    for lib in LIBS:
        lib.manual_seed(seed)
        states.append({k: v for k, v in make(lib).state_dict().items()})
    assert list(states[0]) == list(states[1]), f"state_dict keys {list(states[1])} != {list(states[0])}"
    assert_same(to_numpy(states[0]), to_numpy(states[1]), 1e-6, 1e-7, "initial state")


def check_repr(make):
    """``repr(make(lib))`` is the same string in both libraries."""
    want, got = (repr(make(lib)) for lib in LIBS)
    assert got == want, f"repr:\n{got}\n!= torch's\n{want}"
