"""A small training loop with nn modules, an optimizer over named parameters, a scheduler and clipping,
written once and run in torch and vfw.torch from the same initial weights."""

import numpy as np
import pytest

from compat_tests.torch.optim._streams import LIBS

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("optimizer,kwargs", [("AdamW", {"lr": 0.01}), ("SGD", {"lr": 0.05, "momentum": 0.9,
                                                                              "nesterov": True, "weight_decay": 1e-3})])
def test_training_loop_matches_torch(optimizer, kwargs):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((32, 10)).astype(np.float32), rng.integers(0, 3, 32)
    initial = None
    runs = []
    for lib in LIBS:
        model = lib.nn.Sequential(lib.nn.Linear(10, 16), lib.nn.ReLU(), lib.nn.Linear(16, 3))
        if initial is None:
            initial = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
        model.load_state_dict({k: lib.from_numpy(v.copy()) for k, v in initial.items()})
        opt = getattr(lib.optim, optimizer)(model.named_parameters(), **kwargs)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=20)
        inputs, labels = lib.from_numpy(x), lib.from_numpy(y)
        losses, norms = [], []
        for _ in range(20):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(inputs), labels)
            loss.backward()
            norms.append(lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
            opt.step()
            sched.step()
            losses.append(loss.item())
        runs.append((losses, norms, [p.detach().numpy().copy() for p in model.parameters()]))
    (want_loss, want_norm, want_params), (got_loss, got_norm, got_params) = runs
    np.testing.assert_allclose(got_loss, want_loss, rtol=1e-5)
    np.testing.assert_allclose(got_norm, want_norm, rtol=1e-5)
    for w, g in zip(want_params, got_params):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
