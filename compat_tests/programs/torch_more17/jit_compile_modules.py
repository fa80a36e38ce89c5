"""Deploy-style code from a TorchScript tutorial: torch.jit.trace of a small CNN with an example input, torch.jit
.script of a module with control flow and of a plain function, calling the compiled objects, the traced module's
state_dict saved through a BytesIO buffer and traced again after loading, torch.compile(model) used as a drop-in
that trains the same, and the traced module's outputs compared with eager ones."""

import io

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        x = F.relu(self.conv(x))
        return self.fc(torch.flatten(self.pool(x), 1))


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, steps: int = 2) -> torch.Tensor:
        for _ in range(steps):
            if x.sum() > 0:
                x = torch.tanh(self.lin(x))
            else:
                x = torch.sigmoid(self.lin(x))
        return x


@torch.jit.script
def scaled_softmax(x: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    return torch.softmax(x / temperature, dim=-1)


def main():
    torch.manual_seed(0)
    out = []
    cnn = SmallCNN().eval()
    example = torch.randn(2, 1, 6, 6)
    traced = torch.jit.trace(cnn, example)
    out += [torch.allclose(traced(example), cnn(example)), str(tuple(traced(torch.randn(5, 1, 6, 6)).shape))]
    out += traced(example).flatten().tolist()
    buf = io.BytesIO()
    torch.save(traced.state_dict(), buf)  # the weights travel; the module is rebuilt and traced again
    buf.seek(0)
    rebuilt = SmallCNN().eval()
    rebuilt.load_state_dict(torch.load(buf))
    out.append(torch.allclose(torch.jit.trace(rebuilt, example)(example), traced(example)))

    gate = Gate()
    scripted = torch.jit.script(gate)
    x = torch.randn(3, 4)
    out.append(torch.allclose(scripted(x), gate(x)))
    out.append(torch.allclose(scripted(-x.abs(), 3), gate(-x.abs(), 3)))
    out += scripted(x, 1).sum(1).tolist()
    out += scaled_softmax(torch.tensor([1.0, 2.0, 3.0]), 0.5).tolist()
    out += scaled_softmax(torch.tensor([1.0, 2.0, 3.0])).tolist()
    out.append(str(scripted.lin.weight.shape))

    torch.manual_seed(1)
    model = SmallCNN()
    compiled = torch.compile(model)
    opt = torch.optim.Adam(compiled.parameters(), lr=0.01)
    data = torch.randn(8, 1, 6, 6)
    target = torch.randint(0, 3, (8,))
    for _ in range(6):
        loss = F.cross_entropy(compiled(data), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out.append(torch.allclose(compiled(data), model(data)))
    out.append(str(sorted(model.state_dict().keys())))

    @torch.compile
    def fused(a, b):
        return torch.sin(a) * torch.cos(b) + a

    out += fused(torch.tensor([0.5, 1.0]), torch.tensor([0.25, 2.0])).tolist()
    return out
