"""Semi-supervised FixMatch-style training with an EMA teacher (as in the common SSL repositories): weak
augmentation by random flips and torch.roll shifts, strong augmentation adding noise and a random-erasing
rectangle (index_put_ with a boolean mask), pseudo-labels from the teacher's max softmax probability above a
threshold, a masked unlabeled loss, the EMA teacher updated with torch._foreach_mul_ / _foreach_add_ over
parameter lists and buffers copied with copy_, requires_grad_(False) on the teacher, a deep copy of the student,
and SGD with per-group learning rates, gradient accumulation and clip_grad_norm_ with foreach."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(2))
        self.classifier = nn.Linear(32, 3)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def weak(x, g):
    flip = torch.rand(x.shape[0], generator=g) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(-1), x)
    shift = int(torch.randint(-1, 2, (1,), generator=g))
    return torch.roll(x, shifts=shift, dims=-2)


def strong(x, g):
    x = weak(x, g) + 0.2 * torch.randn(x.shape, generator=g)
    r, c = torch.randint(0, 6, (2,), generator=g).tolist()
    mask = torch.zeros(x.shape[-2:], dtype=torch.bool)
    mask[r:r + 3, c:c + 3] = True
    x = x.clone()
    x[..., mask] = 0.0
    return x


def make(n, g):
    y = torch.randint(0, 3, (n,), generator=g)
    x = 0.2 * torch.randn(n, 1, 8, 8, generator=g)
    x[y == 0, :, :, :4] += 1.0
    x[y == 1, :, :4, :] += 1.0
    x[y == 2] -= 0.5
    return x, y


@torch.no_grad()
def ema_update(teacher, student, decay):
    t_params, s_params = list(teacher.parameters()), list(student.parameters())
    torch._foreach_mul_(t_params, decay)
    torch._foreach_add_(t_params, s_params, alpha=1 - decay)
    for tb, sb in zip(teacher.buffers(), student.buffers()):
        tb.copy_(sb)


def main():
    torch.manual_seed(67)
    g = torch.Generator().manual_seed(67)
    xl, yl = make(12, g)
    xu, _ = make(48, g)
    student = Net()
    teacher = copy.deepcopy(student).requires_grad_(False)
    opt = torch.optim.SGD([{"params": student.features.parameters(), "lr": 0.03},
                           {"params": student.classifier.parameters()}], lr=0.05, momentum=0.9, nesterov=True,
                          weight_decay=5e-4)
    out = [sum(p.requires_grad for p in teacher.parameters())]
    for step in range(6):
        for k in range(2):  # gradient accumulation over two unlabeled chunks
            ub = xu[k * 24:(k + 1) * 24]
            with torch.no_grad():
                teacher.eval()
                probs = teacher(weak(ub, g)).softmax(1)
                conf, pseudo = probs.max(1)
                mask = (conf >= 0.4).float()
            student.train()
            sup = F.cross_entropy(student(weak(xl, g)), yl)
            unsup = (F.cross_entropy(student(strong(ub, g)), pseudo, reduction="none") * mask).mean()
            loss = (sup + unsup) / 2
            loss.backward()
            out += [sup.item(), unsup.item(), mask.mean().item()]
        norm = nn.utils.clip_grad_norm_(student.parameters(), 2.0, foreach=True)
        opt.step()
        opt.zero_grad()
        ema_update(teacher, student, 0.9 if step < 3 else 0.99)
        out.append(norm.item())
    teacher.eval()
    with torch.no_grad():
        logits = teacher(xl)
        out += logits.flatten()[:9].tolist() + [(logits.argmax(1) == yl).float().mean().item()]
        out += teacher.features[1].running_mean.tolist()
    out += [torch.stack(torch._foreach_norm(list(student.parameters()))).sum().item()]
    return out
