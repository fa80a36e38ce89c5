"""Containers and hooks: nn.ModuleList / ModuleDict / ParameterList / ParameterDict, forward hooks capturing
activations, a forward pre-hook rescaling the input, a full backward hook, a tensor hook on a parameter,
named_modules / named_buffers / named_parameters filters, requires_grad_(False) freezing, device fallbacks with
torch.cuda.is_available(), and torch.Generator-driven sampling."""

import torch
import torch.nn as nn


class MultiHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.ModuleList([nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8)])
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "reg": nn.Linear(8, 1)})
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(8)) for _ in range(2)])
        self.extra = nn.ParameterDict({"bias": nn.Parameter(torch.zeros(3))})
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        self.calls += 1
        for i, layer in enumerate(self.trunk):
            x = layer(x)
            if i == 0:
                x = x * self.scales[0]
        x = x * self.scales[-1]
        return self.heads["cls"](x) + self.extra["bias"], self.heads["reg"](x).squeeze(-1)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(4)
    model = MultiHead().to(device)
    activations, grads, seen_inputs = {}, [], []

    def save_activation(name):
        def hook(module, inputs, output):
            activations[name] = output.detach()
        return hook

    handles = [m.register_forward_hook(save_activation(n)) for n, m in model.named_modules()
               if isinstance(m, nn.Linear)]
    handles.append(model.trunk[0].register_forward_pre_hook(lambda m, args: (args[0] * 0.5,)))
    handles.append(model.trunk[2].register_full_backward_hook(
        lambda m, grad_in, grad_out: grads.append(grad_out[0].norm().item())))
    model.scales[0].register_hook(lambda g: seen_inputs.append(g.abs().sum().item()))

    g = torch.Generator(device="cpu").manual_seed(123)
    x = torch.randn(64, 4, generator=g).to(device)
    y_cls = torch.multinomial(torch.tensor([0.2, 0.3, 0.5]), 64, replacement=True, generator=g)
    y_reg = x.sum(1)
    optimizer = torch.optim.Adam([p for n, p in model.named_parameters() if p.requires_grad], lr=1e-2)
    out = [len(handles), len(list(model.named_modules())), len(list(model.parameters()))]
    out.append(",".join(n for n, _ in model.named_parameters()))
    out.append(",".join(n for n, _ in model.named_buffers()))
    for step in range(6):
        idx = torch.randperm(64, generator=g)[:16]
        logits, reg = model(x[idx])
        loss = nn.functional.cross_entropy(logits, y_cls[idx]) + nn.functional.mse_loss(reg, y_reg[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        out.append(loss.item())
        if step == 2:
            for h in handles:
                h.remove()
            model.trunk.requires_grad_(False)
    out += grads + seen_inputs
    out.append(",".join(sorted(activations)))
    out.append(activations["heads.cls"].sum().item())
    out.append(model.calls.item())
    out.append(sum(p.requires_grad for p in model.parameters()))
    out.append(str(device))
    out.append(str(next(model.parameters()).device))
    return out


if __name__ == "__main__":
    print(main())
