"""Grad-CAM and feature extraction with hooks, as interpretability tutorials do it: a forward hook storing the last
conv block's activations, register_full_backward_hook storing grad_output (and a register_full_backward_pre_hook
rescaling it), the class-activation map from channel-averaged gradients, F.interpolate up to the input size and a
min-max normalisation; a forward hook with_kwargs, a forward pre-hook returning new args, hooks removed through
their handles, the global nn.modules.module.register_module_forward_hook, a Tensor hook on the input for a saliency
map, and guided backprop through ReLUs with a backward hook clamping grad_input."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.modules.module import register_module_forward_hook


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(6, 3)

    def forward(self, x, scale=1.0):
        return self.fc(self.pool(self.features(x)).flatten(1)) * scale


def main():
    torch.manual_seed(4)
    model = SmallCNN()
    x = torch.randn(6, 1, 10, 10)
    y = torch.tensor([0, 1, 2, 0, 1, 2])
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    out = []
    for _ in range(5):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()

    store = {}
    target_layer = model.features[3]
    h1 = target_layer.register_forward_hook(lambda m, inp, o: store.__setitem__("act", o.detach()))
    h2 = target_layer.register_full_backward_hook(
        lambda m, gin, gout: store.__setitem__("grad", gout[0].detach()))
    h3 = target_layer.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 2,))
    img = x[:2].clone()
    logits = model(img)
    cls = logits.argmax(1)
    model.zero_grad()
    logits.gather(1, cls[:, None]).sum().backward()
    weights = store["grad"].mean(dim=(2, 3), keepdim=True)
    cam = F.relu((weights * store["act"]).sum(1, keepdim=True))
    cam = F.interpolate(cam, size=img.shape[-2:], mode="bilinear", align_corners=False)
    flat = cam.flatten(1)
    cam = ((flat - flat.min(1, keepdim=True).values) /
           (flat.max(1, keepdim=True).values - flat.min(1, keepdim=True).values + 1e-8)).view_as(cam)
    out += [str(cam.shape), cam.sum().item(), cam[0, 0, 4, :4].tolist().__len__(), cls.tolist()[0],
            store["grad"].abs().sum().item(), model.fc.weight.grad.abs().sum().item()]
    for h in (h1, h2, h3):
        h.remove()
    out.append(len(target_layer._forward_hooks) + len(target_layer._backward_hooks))

    calls = []
    h4 = model.register_forward_hook(lambda m, args, kwargs, o: calls.append(f"kw={sorted(kwargs)}") or o * 0.5,
                                     with_kwargs=True)
    h5 = model.register_forward_pre_hook(lambda m, args: (args[0] + 1.0,))
    with torch.no_grad():
        a = model(img, scale=2.0)
    h4.remove()
    h5.remove()
    with torch.no_grad():
        b = model(img + 1.0, scale=2.0)
    out += calls + [(a - 0.5 * b).abs().max().item()]

    names = []
    handle = register_module_forward_hook(lambda m, i, o: names.append(type(m).__name__))
    with torch.no_grad():
        model(img[:1])
    handle.remove()
    with torch.no_grad():
        model(img[:1])
    out.append(str(names))

    sal_input = img[:1].clone().requires_grad_(True)
    grads = []
    sal_input.register_hook(lambda g: grads.append(g.abs()))
    model(sal_input)[0, 1].backward()
    out += [grads[0].sum().item(), torch.equal(grads[0], sal_input.grad.abs())]

    guided = [m.register_full_backward_hook(lambda m, gin, gout: (gin[0].clamp(min=0),))
              for m in model.modules() if isinstance(m, nn.ReLU)]
    gb_input = img[:1].clone().requires_grad_(True)
    model(gb_input)[0, 1].backward()
    out += [gb_input.grad.sum().item(), (gb_input.grad < 0).sum().item()]
    for h in guided:
        h.remove()
    return out
