"""A text classifier (Embedding, a 2-layer bidirectional LSTM, a GRU over its outputs, mean pooling) exported with
a dynamic batch and a dynamic sequence length, plus an explicit initial state as a second input; onnxruntime runs
it on sentences longer and shorter than the example's, against the eager model."""

import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn


class TextClassifier(nn.Module):
    def __init__(self, vocab=30, dim=8, hidden=10):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(2 * hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 4)

    def forward(self, tokens, h0):
        seq, _ = self.lstm(self.embed(tokens))
        seq, last = self.gru(seq, h0)
        return self.out(seq.mean(1) + last[0])


def main():
    torch.manual_seed(2)
    model = TextClassifier()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    tokens, labels = torch.randint(0, 30, (8, 9)), torch.randint(0, 4, (8,))
    h0 = torch.zeros(1, 8, 10)
    out = []
    for _ in range(3):
        loss = nn.functional.cross_entropy(model(tokens, h0), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "text.onnx")
        torch.onnx.export(model, (tokens[:2, :5], h0[:, :2]), path, input_names=["tokens", "h0"],
                          output_names=["logits"], opset_version=17, dynamo=False,
                          dynamic_axes={"tokens": {0: "batch", 1: "length"}, "h0": {1: "batch"},
                                        "logits": {0: "batch"}})
        onnx.checker.check_model(path)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    out.append(repr([(i.name, i.shape, i.type) for i in session.get_inputs()]))
    out.append(repr([(o.name, o.shape) for o in session.get_outputs()]))
    for batch, length in ((1, 3), (3, 12), (8, 9)):
        words = torch.randint(0, 30, (batch, length))
        state = torch.randn(1, batch, 10) * 0.1
        (logits,) = session.run(None, {"tokens": words.numpy(), "h0": state.numpy()})
        with torch.no_grad():
            eager = model(words, state).numpy()
        out += [round(float(np.abs(logits - eager).max()), 4)] + logits[-1].tolist()
    return out
