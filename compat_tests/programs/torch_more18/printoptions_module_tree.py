"""What a "debugging your model" notebook prints: tensors under torch.set_printoptions (precision, sci_mode,
linewidth, threshold, edgeitems) - big summarized ones, mixed magnitudes, integers, bools, complex, float64 and
requires_grad tensors - and a nested custom model: its __repr__ with extra_repr, named_modules / named_children /
named_buffers traversal, register_buffer(persistent=False) left out of state_dict, get_submodule, and a short
training run whose losses are printed with the options in force."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Scale(nn.Module):
    def __init__(self, dim, init=1.0):
        super().__init__()
        self.gamma = nn.Parameter(torch.full((dim,), init))
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))
        self.register_buffer("cache", torch.zeros(dim), persistent=False)

    def extra_repr(self):
        return f"dim={self.gamma.numel()}, init={self.gamma[0].item():.2f}"

    def forward(self, x):
        self.calls += 1
        self.cache = x.detach().mean(0)
        return x * self.gamma


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim, elementwise_affine=False)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.scale = Scale(dim, 0.5)

    def forward(self, x):
        return x + self.scale(self.ff(self.norm(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(4, 8, bias=False)
        self.blocks = nn.ModuleList([Block(8) for _ in range(2)])
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "reg": nn.Linear(8, 1)})
        self.register_buffer("mean", torch.zeros(4))

    def forward(self, x):
        h = self.embed(x - self.mean)
        for block in self.blocks:
            h = block(h)
        return self.heads["cls"](h), self.heads["reg"](h).squeeze(-1)


def main():
    torch.manual_seed(0)
    out = []
    # exact quotients: randn's vectorized Box-Muller may differ by an ulp, which precision=6 would show
    big = torch.arange(1200.0).reshape(30, 40) / 7 - 80
    mixed = torch.tensor([1e-5, 3.14159, 2.5e4, -7.0])
    ints = torch.arange(-500, 1500, 7)
    flags = torch.rand(3, 5) > 0.5
    cplx = torch.complex(torch.randn(4), torch.randn(4))
    dbl = torch.linspace(0, 1, 7, dtype=torch.float64)
    for options in [dict(precision=2), dict(precision=6, sci_mode=True), dict(linewidth=40),
                    dict(threshold=50, edgeitems=2), dict(sci_mode=False, precision=3, linewidth=60),
                    dict(profile="short"), dict(profile="full", linewidth=200)]:
        torch.set_printoptions(**options)
        out += [str(big[:3]), str(mixed), str(ints[:40]), str(flags), str(cplx), str(dbl),
                repr(torch.randn(3, requires_grad=True) * 2)]
        if options.get("threshold") == 50:
            out += [str(big), str(ints), str(torch.arange(60.0).reshape(3, 4, 5))]
    torch.set_printoptions(profile="default")
    out.append(str(big))

    model = Net()
    out.append(repr(model))
    out.append(",".join(name for name, _ in model.named_modules()))
    out.append(",".join(name for name, _ in model.named_children()))
    out.append(",".join(f"{n}:{tuple(b.shape)}" for n, b in model.named_buffers()))
    out.append(",".join(model.state_dict().keys()))
    out.append(repr(model.get_submodule("blocks.1.ff.2")))
    out.append(str([type(m).__name__ for m in model.blocks[0].modules()]))
    x = torch.randn(32, 4)
    y = torch.randint(0, 3, (32,))
    t = x.sum(1)
    model.mean.copy_(x.mean(0))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    torch.set_printoptions(precision=3)
    for step in range(6):
        logits, reg = model(x)
        loss = F.cross_entropy(logits, y) + F.mse_loss(reg, t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
        if step % 2 == 0:
            out.append(repr(loss.detach()))
    out.append(str(model.blocks[0].scale.calls))
    out.append(str(model.blocks[1].scale.cache))
    out.append(str(model.blocks[0].scale.gamma))
    torch.set_printoptions(profile="default")
    sd = model.state_dict()
    fresh = Net()
    missing = fresh.load_state_dict(sd, strict=True)
    out.append(repr(missing))
    out.append(torch.equal(fresh.blocks[1].scale.cache, torch.zeros(8)))
    return out


if __name__ == "__main__":
    print(main())
