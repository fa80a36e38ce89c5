"""A Hugging Face-style Trainer written without the transformers library: a TrainingArguments dataclass, gradient
accumulation over micro-batches, a hand-written linear warmup/decay LambdaLR, clip_grad_norm_, and a checkpoint
holding the model, optimizer, scheduler, RNG state and the dataclass itself, saved with torch.save into an
io.BytesIO and restored with torch.load(weights_only=True) after torch.serialization.add_safe_globals; resuming must
reproduce the uninterrupted run exactly. The encoder's self-attention is F.scaled_dot_product_attention with a
key-padding mask.  torch.utils.benchmark.Timer measures the forward pass (times not reported)."""

import dataclasses
import io

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.benchmark as benchmark


@dataclasses.dataclass
class TrainingArguments:
    learning_rate: float = 3e-3
    warmup_steps: int = 2
    total_steps: int = 8
    accumulation: int = 2
    max_grad_norm: float = 0.5
    run_name: str = "tiny-cls"


class Classifier(nn.Module):
    def __init__(self, vocab=20, dim=12, classes=3, heads=2):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.norm = nn.LayerNorm(dim, eps=1e-12)
        self.head = nn.Linear(dim, classes)

    def forward(self, ids):
        b, t = ids.shape
        keep = ids != 0
        q, k, v = self.qkv(self.embed(ids)).view(b, t, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        attended = F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])
        h = self.norm(attended.transpose(1, 2).reshape(b, t, -1))
        mask = keep.unsqueeze(-1).to(h.dtype)
        pooled = (h * mask).sum(1) / mask.sum(1).clamp_min(1.0)
        return self.head(F.gelu(pooled))


def linear_schedule(args):
    def factor(step):
        if step < args.warmup_steps:
            return (step + 1) / args.warmup_steps
        return max(0.0, (args.total_steps - step) / max(1, args.total_steps - args.warmup_steps))
    return factor


def build(args):
    torch.manual_seed(0)
    model = Classifier()
    opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, linear_schedule(args))
    return model, opt, sched


def train(model, opt, sched, args, batches, steps, losses):
    for _ in range(steps):
        opt.zero_grad()
        for micro in range(args.accumulation):
            ids, y = batches(micro)
            loss = F.cross_entropy(model(ids), y, label_smoothing=0.1) / args.accumulation
            loss.backward()
            losses.append(loss.item())
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        losses.append(norm.item())
        opt.step()
        sched.step()


def main():
    g = torch.Generator().manual_seed(4)
    ids = torch.randint(1, 20, (16, 6), generator=g)
    ids[::3, 4:] = 0
    labels = ids[:, 0] % 3
    args = TrainingArguments()

    def batches(micro):
        drop = torch.bernoulli(torch.full((8, 6), 0.1))  # token dropout from the global generator
        sl = slice(micro * 8, micro * 8 + 8)
        return ids[sl] * (1 - drop).long(), labels[sl]

    full = []
    model, opt, sched = build(args)
    train(model, opt, sched, args, batches, args.total_steps, full)
    final = model(ids).detach()

    resumed = []
    model, opt, sched = build(args)
    train(model, opt, sched, args, batches, 3, resumed)
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                "rng": torch.get_rng_state(), "args": args, "step": 3}, buffer)
    torch.serialization.add_safe_globals([TrainingArguments])
    buffer.seek(0)
    ckpt = torch.load(buffer, weights_only=True)
    model, opt, sched = build(ckpt["args"])
    model.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optimizer"])
    sched.load_state_dict(ckpt["scheduler"])
    torch.set_rng_state(ckpt["rng"])
    train(model, opt, sched, ckpt["args"], batches, args.total_steps - ckpt["step"], resumed)
    out = full + [(model(ids).detach() - final).abs().max().item() < 1e-6, resumed == full,
                  str(ckpt["args"]), str(type(ckpt["args"]).__name__), sched.get_last_lr()[0]]
    timer = benchmark.Timer(stmt="model(ids)", globals={"model": model, "ids": ids}, label="forward")
    measurement = timer.timeit(3)
    out += [str(type(measurement).__name__), measurement.number_per_run, str(measurement.stmt)]
    return out
