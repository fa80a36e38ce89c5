"""A two-tower model with several inputs (an image, token ids, a keyword argument for a float scale) and several
outputs returned as a dict and as a nested tuple: exported with kwargs= and with a trailing dict of keyword
arguments (opsets 17 and 11), given input and output names; onnxruntime's outputs are matched to the eager model's
flattened outputs."""

import io

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn


class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.image = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.text = nn.EmbeddingBag(15, 4, mode="mean")
        self.classify = nn.Linear(8, 3)

    def forward(self, image, tokens, scale=None):
        a, b = self.image(image), self.text(tokens)
        if scale is not None:
            a = a * scale
        joint = torch.cat([a, b], dim=1)
        return {"logits": self.classify(joint), "similarity": (a * b).sum(1), "joint": joint}


class Pair(nn.Module):
    def __init__(self, tower):
        super().__init__()
        self.tower = tower

    def forward(self, image, tokens, scale):
        outputs = self.tower(image, tokens, scale=scale)
        return outputs["logits"].softmax(-1), (outputs["similarity"], outputs["joint"].norm(dim=1))


def describe(data):
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    names = repr([(i.name, i.shape, i.type) for i in session.get_inputs()]
                 + [(o.name, o.shape) for o in session.get_outputs()])
    return session, names


def main():
    torch.manual_seed(4)
    tower = TwoTower().eval()
    image, tokens, scale = torch.randn(2, 1, 8, 8), torch.randint(0, 15, (2, 5)), torch.tensor(1.5)
    out = []
    buffer = io.BytesIO()
    torch.onnx.export(tower, (image, tokens), buffer, kwargs={"scale": scale},
                      input_names=["image", "tokens", "scale"], output_names=["logits", "similarity", "joint"],
                      opset_version=17, dynamo=False)
    onnx.checker.check_model(onnx.load_from_string(buffer.getvalue()))
    session, names = describe(buffer.getvalue())
    out.append(names)
    feeds = {"image": image.numpy(), "tokens": tokens.numpy(), "scale": scale.numpy()}
    results = session.run(None, feeds)
    with torch.no_grad():
        eager = tower(image, tokens, scale=scale)
    for name, got in zip(["logits", "similarity", "joint"], results):
        out += [round(float(np.abs(got - eager[name].numpy()).max()), 4)] + got.ravel()[:4].tolist()
    # The same values through onnxruntime with another scale: the keyword argument is a real graph input.
    results = session.run(["similarity"], dict(feeds, scale=np.array(-2.0, np.float32)))
    out += results[0].tolist()
    # Nested tuple outputs, keyword arguments in a trailing dict, dynamic batch for all inputs, the old opset 11 that
    # deployment tutorials pass.
    pair = Pair(tower).eval()
    buffer = io.BytesIO()
    torch.onnx.export(pair, (image, tokens, {"scale": scale}), buffer, input_names=["image", "tokens", "scale"],
                      output_names=["probs", "similarity", "norm"], opset_version=11, dynamo=False,
                      dynamic_axes={"image": {0: "batch"}, "tokens": {0: "batch"}, "probs": {0: "batch"},
                                    "similarity": {0: "batch"}, "norm": {0: "batch"}})
    session, names = describe(buffer.getvalue())
    out.append(names)
    image, tokens = torch.randn(5, 1, 8, 8), torch.randint(0, 15, (5, 5))
    probs, similarity, norm = session.run(None, {"image": image.numpy(), "tokens": tokens.numpy(),
                                                 "scale": scale.numpy()})
    with torch.no_grad():
        want_probs, (want_similarity, want_norm) = pair(image, tokens, scale)
    for got, want in ((probs, want_probs), (similarity, want_similarity), (norm, want_norm)):
        out += [round(float(np.abs(got - want.numpy()).max()), 4)] + got.ravel()[:3].tolist()
    return out
