"""A small Transformer encoder classifier (hand-written multi-head attention blocks as in minGPT-style code: the
legacy exporter bakes nn.MultiheadAttention's reshapes to the example's sizes) with learned positions and a key
padding mask given as a second (bool) input, exported with dynamic batch and length; onnxruntime runs padded
batches of other shapes, and the padded positions must not change the result (as in the eager model).  Opset 12:
softmax still flattened its input to 2-D there."""

import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.GELU(), nn.Linear(2 * d_model, d_model))
        self.drop = nn.Dropout(0.1)

    def forward(self, x, padding_mask):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5
        scores = scores.masked_fill(padding_mask[:, None, None, :], float("-inf"))
        attn = self.drop(F.softmax(scores, dim=-1))
        x = x + self.proj((attn @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.drop(self.mlp(self.ln2(x)))


class Encoder(nn.Module):
    def __init__(self, vocab=20, d_model=16, max_len=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=0)
        self.pos = nn.Parameter(torch.randn(max_len, d_model) * 0.02)
        self.blocks = nn.ModuleList([Block(d_model, 4) for _ in range(2)])
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, 3)

    def forward(self, tokens, padding_mask):
        h = self.embed(tokens) + self.pos[: tokens.shape[1]]
        for block in self.blocks:
            h = block(h, padding_mask)
        h = self.norm(h)
        keep = (~padding_mask).unsqueeze(-1).to(h.dtype)
        return self.head((h * keep).sum(1) / keep.sum(1))


def batch(lengths, total):
    tokens = torch.randint(1, 20, (len(lengths), total))
    mask = torch.arange(total)[None, :] >= torch.tensor(lengths)[:, None]
    return tokens.masked_fill(mask, 0), mask


def main():
    torch.manual_seed(3)
    model = Encoder()
    opt = torch.optim.AdamW(model.parameters(), lr=0.005)
    tokens, mask = batch([6, 3, 8, 5], 8)
    labels = torch.tensor([0, 2, 1, 1])
    out = []
    for _ in range(3):
        loss = nn.functional.cross_entropy(model(tokens, mask), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "encoder.onnx")
        torch.onnx.export(model, (tokens, mask), path, input_names=["tokens", "padding_mask"],
                          output_names=["logits"], opset_version=12, dynamo=False,
                          dynamic_axes={"tokens": {0: "batch", 1: "length"}, "padding_mask": {0: "batch", 1: "length"},
                                        "logits": {0: "batch"}})
        proto = onnx.load(path)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    out.append(repr([(o.domain, o.version) for o in proto.opset_import]))
    out.append(repr([(i.name, i.shape, i.type) for i in session.get_inputs() + session.get_outputs()]))
    for lengths, total in (([2, 7, 4], 7), ([10], 12), ([6, 3, 8, 5], 8)):
        words, pad = batch(lengths, total)
        (logits,) = session.run(None, {"tokens": words.numpy(), "padding_mask": pad.numpy()})
        with torch.no_grad():
            eager = model(words, pad).numpy()
        out += [round(float(np.abs(logits - eager).max()), 4)] + logits.ravel().tolist()
    # Extra padding at the end leaves the real tokens' logits unchanged.
    words, pad = batch([4, 2], 4)
    longer = torch.cat([words, torch.zeros(2, 3, dtype=words.dtype)], 1)
    longer_pad = torch.cat([pad, torch.ones(2, 3, dtype=torch.bool)], 1)
    short = session.run(None, {"tokens": words.numpy(), "padding_mask": pad.numpy()})[0]
    long = session.run(None, {"tokens": longer.numpy(), "padding_mask": longer_pad.numpy()})[0]
    out.append(round(float(np.abs(short - long).max()), 4))
    return out
