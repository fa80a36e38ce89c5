"""A module whose forward mixes the tensor operations people write by hand in post-processing and feature code:
torch.where, clamp, cumsum, gather, topk, expand, masked_fill, F.interpolate, F.pad, LayerNorm, GELU, a causal
mask from triu; exported at opset 17 with a dynamic batch (the example's batch differs from the served ones), every
output compared between onnxruntime and the eager model."""

import os
import tempfile

import numpy as np
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F


class Features(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(12)
        self.act = nn.GELU(approximate="tanh")
        self.proj = nn.Linear(12, 12)
        self.conv = nn.Conv2d(2, 3, 3, padding=1)

    def forward(self, x, image):
        h = self.act(self.norm(self.proj(x)))                       # (B, 12)
        h = torch.where(h > 0, h, 0.1 * h).clamp(-0.5, 2.0)
        running = torch.cumsum(h, dim=1)
        values, index = torch.topk(running, 3, dim=1)
        picked = torch.gather(h, 1, index)
        table = picked.unsqueeze(1).expand(-1, 4, -1)               # (B, 4, 3)
        causal = torch.triu(torch.ones(4, 3, dtype=torch.bool), diagonal=1)
        table = table.masked_fill(causal, -1.0)
        up = F.interpolate(self.conv(image), scale_factor=2, mode="bilinear", align_corners=False)
        padded = F.pad(up, (1, 2, 0, 1), mode="constant", value=0.5)
        nearest = F.interpolate(image, size=(5, 7), mode="nearest")
        return values, index, table, padded.mean((2, 3)), nearest.amax(dim=(1, 2)), F.gelu(x).sum(1)


def main():
    torch.manual_seed(5)
    model = Features().eval()
    x, image = torch.randn(3, 12), torch.randn(3, 2, 4, 6)
    names = ["values", "index", "table", "pooled", "nearest", "gelu"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "features.onnx")
        torch.onnx.export(model, (x, image), path, input_names=["x", "image"], output_names=names,
                          dynamic_axes={"x": {0: "batch"}, "image": {0: "batch"}, **{n: {0: "batch"} for n in names}},
                          opset_version=17, dynamo=False)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    # Names, ranks, the batch dim and types (torch's exporter leaves some static dims symbolic: not compared).
    out = [repr([(o.name, len(o.shape), o.shape[0], o.type) for o in session.get_outputs()])]
    for batch in (3, 5):
        x, image = torch.randn(batch, 12), torch.randn(batch, 2, 4, 6)
        results = session.run(None, {"x": x.numpy(), "image": image.numpy()})
        with torch.no_grad():
            eager = model(x, image)
        for got, want in zip(results, eager):
            out += [str(got.dtype), repr(got.shape), round(float(np.abs(got - want.numpy()).max()), 4)]
            out += got.ravel()[:3].tolist()
    return out
