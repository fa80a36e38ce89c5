"""Export, fine-tune, export again: a regression model with a Conv1d front end and a buffer (input
normalization) is exported, then fine-tuned in torch (the optimizer updates the same parameters the first export
read) and exported again to the same path; each file must hold the weights of its moment, so onnxruntime on the old
file still gives the old outputs and on the new file the new ones.  The second export also keeps the weights as
graph inputs (keep_initializers_as_inputs=True), so they can be overridden at run time."""

import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.zeros(2, 1))
        self.conv = nn.Conv1d(2, 6, 5, padding=2)
        self.pool = nn.AdaptiveMaxPool1d(4)
        self.fc = nn.Linear(24, 1)

    def forward(self, signal):
        h = torch.relu(self.conv(signal - self.mean))
        return self.fc(self.pool(h).flatten(1)).squeeze(-1)


def serve(data_or_path, signal):
    session = ort.InferenceSession(data_or_path, providers=["CPUExecutionProvider"])
    return session, session.run(None, {"signal": signal.numpy()})[0]


def main():
    torch.manual_seed(6)
    model = Regressor()
    signal = torch.randn(20, 2, 16)
    target = signal[:, 0].mean(1) - signal[:, 1].amax(1)
    model.mean.copy_(signal.mean((0, 2))[:, None])
    probe = torch.randn(3, 2, 16)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "regressor.onnx")
        model.eval()
        torch.onnx.export(model, (signal[:2],), path, input_names=["signal"], output_names=["y"],
                          dynamic_axes={"signal": {0: "batch"}}, opset_version=17, dynamo=False)
        before = model(probe).detach().numpy()
        first = onnx.load(path)
        _, old = serve(path, probe)
        out += [round(float(np.abs(old - before).max()), 4)] + old.tolist()
        model.train()
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        for _ in range(10):
            loss = nn.functional.mse_loss(model(signal), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        model.eval()
        torch.onnx.export(model, (signal[:2],), path, input_names=["signal"], output_names=["y"],
                          dynamic_axes={"signal": {0: "batch"}}, opset_version=17, dynamo=False,
                          keep_initializers_as_inputs=True)
        after = model(probe).detach().numpy()
        session, new = serve(path, probe)
        _, stale = serve(first.SerializeToString(), probe)
    out += [round(float(np.abs(new - after).max()), 4), round(float(np.abs(stale - before).max()), 4)]
    out += new.tolist() + [bool(np.abs(new - old).max() > 1e-3)]
    inputs = session.get_inputs()
    out += [inputs[0].name, repr(inputs[0].shape), len(inputs) > 1]
    # The weights are inputs with defaults: feeding a zeroed final bias shifts every output by minus that bias.
    out.append(repr(sorted((i.name, i.shape) for i in inputs)))
    shifted = session.run(None, {"signal": probe.numpy(), "fc.bias": np.zeros(1, np.float32)})[0]
    out += (new - shifted).tolist() + [model.fc.bias.item()]
    return out
