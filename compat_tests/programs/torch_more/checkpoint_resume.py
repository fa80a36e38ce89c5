"""A small language model with weight tying (decoder.weight = encoder.weight), activation checkpointing
(torch.utils.checkpoint, non-reentrant and reentrant), torch.compile passthrough, AdamW + LambdaLR; a checkpoint of
model/optimizer/scheduler state saved with torch.save to a buffer, loaded into fresh objects and resumed: the
resumed run must continue exactly as the uninterrupted one."""

import copy
import io

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class TiedLM(nn.Module):
    def __init__(self, vocab=12, d=8, use_reentrant=False):
        super().__init__()
        self.encoder = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d), Block(d)])
        self.decoder = nn.Linear(d, vocab)
        self.decoder.weight = self.encoder.weight  # weight tying
        self.use_reentrant = use_reentrant

    def forward(self, tokens):
        x = self.encoder(tokens)
        for block in self.blocks:
            if self.training:
                x = checkpoint(block, x, use_reentrant=self.use_reentrant)
            else:
                x = block(x)
        return self.decoder(x)


def make_optim(model):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.05)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 / (1.0 + 0.1 * step))
    return optimizer, scheduler


def train_steps(model, optimizer, scheduler, data, steps):
    losses = []
    for i in steps:
        tokens = data[i % len(data)]
        logits = model(tokens[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(2)
    data = [torch.randint(0, 12, (4, 7)) for _ in range(3)]
    out = []
    for use_reentrant in (False, True):
        torch.manual_seed(5)
        model = TiedLM(use_reentrant=use_reentrant)
        compiled = torch.compile(model)
        out.append(float(model.decoder.weight is model.encoder.weight))
        out.append(len(list(model.parameters())))
        optimizer, scheduler = make_optim(model)
        out += train_steps(compiled, optimizer, scheduler, data, range(4))
        buffer = io.BytesIO()
        torch.save({"epoch": 4, "model_state_dict": model.state_dict(),
                    "optimizer_state_dict": optimizer.state_dict(),
                    "scheduler_state_dict": scheduler.state_dict()}, buffer)
        reference = copy.deepcopy(model)
        ref_opt, ref_sched = make_optim(reference)
        ref_opt.load_state_dict(optimizer.state_dict())
        ref_sched.load_state_dict(scheduler.state_dict())
        uninterrupted = train_steps(model, optimizer, scheduler, data, range(4, 8))
        buffer.seek(0)
        ckpt = torch.load(buffer, weights_only=True)
        resumed = TiedLM(use_reentrant=use_reentrant)
        resumed.load_state_dict(ckpt["model_state_dict"])
        res_opt, res_sched = make_optim(resumed)
        res_opt.load_state_dict(ckpt["optimizer_state_dict"])
        res_sched.load_state_dict(ckpt["scheduler_state_dict"])
        again = train_steps(resumed, res_opt, res_sched, data, range(ckpt["epoch"], 8))
        out += uninterrupted + again + train_steps(reference, ref_opt, ref_sched, data, range(4, 8))
        out.append(float(resumed.decoder.weight is resumed.encoder.weight))
        out.append(res_opt.state_dict()["state"][0]["step"].item())
        out.append(sorted(ckpt["optimizer_state_dict"]["state"][0]))
        resumed.eval()
        with torch.no_grad():
            out.append(resumed(data[0]).sum().item())
    out = [v if not isinstance(v, list) else ",".join(v) for v in out]
    return out


if __name__ == "__main__":
    print(main())
