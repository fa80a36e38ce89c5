"""Training steps with vfw.torch's nn/optim against real torch: the same script in both.

Targets (issue 6): MLP 784-512-512-10 (batch 128, SGD) <= 1.2x torch; CNN
Conv-ReLU-MaxPool x2 + 2 Linear on 1x28x28 (batch 64, Adam) <= 2x; LSTM (seq 32, batch 32,
input 128, hidden 128, SGD) <= 2x.  Both libraries start from the same weights.
"""

import numpy as np

from benchmarks.timing import interleaved_medians

try:
    import torch
except ImportError:
    torch = None


def _mlp(nn):
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def _cnn(nn):
    return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 5 * 5, 128), nn.ReLU(), nn.Linear(128, 10))


def _lstm(nn):
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(128, 128)
            self.head = nn.Linear(128, 10)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.head(out[-1])

    return Tagger()


CASES = {
    "MLP 784-512-512-10, batch 128, SGD": (_mlp, "SGD", (128, 784)),
    "CNN 2x(conv-relu-pool) + 2 linear, 1x28x28, batch 64, Adam": (_cnn, "Adam", (64, 1, 28, 28)),
    "LSTM seq 32, batch 32, 128->128, SGD": (_lstm, "SGD", (32, 32, 128)),
}


def _setup(lib, make, optimizer, x, y, state):
    model = make(lib.nn)
    model.load_state_dict({k: lib.from_numpy(v.copy()) for k, v in state.items()})
    opt = getattr(lib.optim, optimizer)(model.parameters(), lr=0.01)
    inputs, labels = lib.from_numpy(x), lib.from_numpy(y)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(inputs), labels)
        loss.backward()
        opt.step()
        return loss

    return step


def run_benchmark(rounds=15):
    """Return (header, rows): milliseconds per training step for vfw.torch and torch, and their ratio."""
    import vfw.torch as vt

    header = ["training step", "vfw.torch ms", "torch ms", "vfw/torch"]
    rows = []
    rng = np.random.default_rng(0)
    for case, (make, optimizer, shape) in CASES.items():
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.integers(0, 10, shape[1] if make is _lstm else shape[0])
        vt.manual_seed(0)
        state = {k: v.numpy().copy() for k, v in make(vt.nn).state_dict().items()}
        candidates = {"vfw": _setup(vt, make, optimizer, x, y, state)}
        if torch is not None:
            candidates["torch"] = _setup(torch, make, optimizer, x, y, state)
        ms = {k: v * 1e3 for k, v in interleaved_medians(candidates, rounds=rounds, target=0.05).items()}
        ref = ms.get("torch")
        rows.append([case, f"{ms['vfw']:.2f}", "n/a" if ref is None else f"{ref:.2f}",
                     "n/a" if ref is None else f"{ms['vfw'] / ref:.2f}x"])
    return header, rows
