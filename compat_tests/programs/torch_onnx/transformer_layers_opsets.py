"""torch.nn's own Transformer layers (nn.TransformerEncoder with a key padding mask, nn.MultiheadAttention returning
averaged attention weights) exported at fixed shapes at opsets 14 and 17 (LayerNorm and GELU have no ONNX operator
there), plus the list form of dynamic_axes (generated dim names); onnxruntime's outputs against the eager model."""

import io

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, d_model=16):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, nhead=2, dim_feedforward=24, dropout=0.2, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.attend = nn.MultiheadAttention(d_model, 4, batch_first=True)
        self.tags = nn.Linear(d_model, 5)

    def forward(self, x, padding):
        h = self.encoder(x, src_key_padding_mask=padding)
        pooled, weights = self.attend(h[:, :1], h, h)
        return self.tags(h + pooled), weights


def run(model, args, names, opset, dynamic_axes=None):
    buffer = io.BytesIO()
    torch.onnx.export(model, args, buffer, input_names=names, opset_version=opset, dynamic_axes=dynamic_axes,
                      dynamo=False)
    proto = onnx.load_from_string(buffer.getvalue())
    onnx.checker.check_model(proto)
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    return proto, session


def main():
    torch.manual_seed(7)
    model = Tagger()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    x, target = torch.randn(3, 6, 16), torch.randint(0, 5, (3, 6))
    padding = torch.arange(6)[None, :] >= torch.tensor([6, 4, 2])[:, None]
    out = []
    for _ in range(3):
        logits, _ = model(x, padding)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), target.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    fresh = torch.randn(3, 6, 16)
    with torch.no_grad():
        want = [t.numpy() for t in model(fresh, padding)]
    for opset in (14, 17):
        proto, session = run(model, (x, padding), ["x", "padding"], opset)
        got = session.run(None, {"x": fresh.numpy(), "padding": padding.numpy()})
        out.append(repr([(o.domain, o.version) for o in proto.opset_import]))
        out.append(repr([(o.shape, o.type) for o in session.get_outputs()]))
        for g, w in zip(got, want):
            out += [round(float(np.abs(g - w).max()), 4)] + g.ravel()[:4].tolist()
    head = nn.Sequential(nn.Linear(16, 8), nn.LayerNorm(8), nn.SiLU(), nn.Linear(8, 2)).eval()
    _, session = run(head, (x[:, 0],), ["features"], 13, dynamic_axes={"features": [0]})
    out.append(repr([(i.name, i.shape) for i in session.get_inputs()]))
    features = torch.randn(7, 16)
    (got,) = session.run(None, {"features": features.numpy()})
    with torch.no_grad():
        out += [round(float(np.abs(got - head(features).numpy()).max()), 4)] + got[:2].ravel().tolist()
    return out
