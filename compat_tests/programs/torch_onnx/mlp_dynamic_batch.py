"""Deployment of a small tabular MLP: train a few steps, export with a dynamic batch axis (explicit opset 17, named
inputs/outputs), check the file with onnx.checker, then serve it in onnxruntime at batch sizes other than the
example's and compare with the eager model."""

import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 6), torch.randint(0, 3, (32,))
    out = []
    for _ in range(5):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mlp.onnx")
        torch.onnx.export(model, (x[:4],), path, input_names=["features"], output_names=["logits"],
                          dynamic_axes={"features": {0: "batch"}, "logits": {0: "batch"}}, opset_version=17,
                          dynamo=False)
        proto = onnx.load(path)
        onnx.checker.check_model(proto)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    out += [repr([(o.domain, o.version) for o in proto.opset_import]),
            repr([(i.name, i.shape, i.type) for i in session.get_inputs()]),
            repr([(o.name, o.shape, o.type) for o in session.get_outputs()])]
    for batch in (1, 7, 32):
        features = torch.randn(batch, 6)
        (logits,) = session.run(["logits"], {"features": features.numpy()})
        with torch.no_grad():
            eager = model(features).numpy()
        out += [logits.shape[0], round(float(np.abs(logits - eager).max()), 4)] + logits[0].tolist()
        out.append(int((logits.argmax(1) == eager.argmax(1)).sum()))
    return out
