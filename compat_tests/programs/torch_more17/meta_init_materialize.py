"""Big-model style initialisation, as "init empty weights" helpers do it: build a model under
``with torch.device("meta")`` (no memory, no random draws), count its parameters and read shapes, run a meta input
through it to get output shapes, print meta tensors, the errors of reading their values or moving them with .to(),
then to_empty(device="cpu"), a seeded custom init, load_state_dict from a trained reference (assign=True too) and a
few training steps that must match the reference's."""

import warnings

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class Model(nn.Module):
    def __init__(self, vocab=12, dim=8, depth=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        h = self.embed(tokens)
        for block in self.blocks:
            h = block(h)
        return self.head(h)


def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.02)
        nn.init.zeros_(module.bias)
    elif isinstance(module, nn.Embedding):
        nn.init.normal_(module.weight, std=0.1)


def caught(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn()
    except Exception as e:  # noqa: BLE001 - the program prints whatever the framework raises
        return f"{type(e).__name__}: {e}"
    return f"ok {result}"


def train(model, steps, tokens, targets):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        logits = model(tokens)
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(0)
    out = []
    with torch.device("meta"):
        big = Model(dim=16, depth=4)
        out.append(str(torch.get_default_device()))
    out.append(str(torch.get_default_device()))
    n_params = sum(p.numel() for p in big.parameters())
    out += [n_params, str(big.head.weight.device), big.head.weight.is_meta, str(big.head.weight.shape)]
    out.append(str(big.blocks[0].ff[0].bias))
    out.append(str(big.embed.weight))
    tokens = torch.randint(0, 12, (2, 5), device="meta")
    logits = big(tokens)
    out += [str(tuple(logits.shape)), str(logits), str(logits.softmax(-1).sum(-1))]
    out.append(caught(lambda: logits.sum().item()))
    out.append(caught(lambda: logits.tolist()))
    out.append(caught(lambda: logits.detach().numpy()))
    out.append(caught(lambda: big.to("cpu")))
    out.append(str(torch.randn(3)))  # the meta model drew nothing from the generator

    reference = Model()
    data = torch.randint(0, 12, (4, 6))
    targets = data.roll(1, dims=1)

    with torch.device("meta"):
        model = Model()
    model.to_empty(device="cpu")
    torch.manual_seed(1)
    model.apply(init_weights)
    out.append(str(model.head.weight.device))
    out.append(model.embed.weight.std().item())
    out.append(model.blocks[1].norm.weight.shape[0])

    model.load_state_dict(reference.state_dict())
    out.append(all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), reference.state_dict().values())))

    with torch.device("meta"):
        assigned = Model()
    result = assigned.load_state_dict(reference.state_dict(), assign=True)
    out += [str(result), str(assigned.head.weight.device), assigned.head.weight.requires_grad]

    out += train(reference, 4, data, targets)
    out += train(model, 4, data, targets)
    out += train(assigned, 2, data, targets)
    out.append(caught(lambda: torch.ones(2).to("cpu", dtype="float")))
    return out
