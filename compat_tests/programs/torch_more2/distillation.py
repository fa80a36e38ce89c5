"""Knowledge distillation: a teacher MLP trained first, then a smaller student trained on a mix of the hard
cross-entropy and the soft KLDivLoss(reduction="batchmean") at temperature T (scaled by T**2), once with
probabilities and once with log_target=True; label smoothing, cosine annealing with warm restarts."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_data(n, generator):
    x = torch.randn(n, 10, generator=generator)
    w = torch.randn(10, 4, generator=generator)
    y = (x @ w + 0.5 * torch.randn(n, 4, generator=generator)).argmax(dim=1)
    return x, y


def train_epoch(model, x, y, opt, loss_fn, batch=32):
    losses = []
    for i in range(0, len(x), batch):
        opt.zero_grad()
        loss = loss_fn(model(x[i:i + batch]), x[i:i + batch], y[i:i + batch])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(1)
    g = torch.Generator().manual_seed(5)
    x, y = make_data(256, g)
    teacher = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 64), nn.ReLU(),
                            nn.Linear(64, 4))
    student = nn.Sequential(nn.Linear(10, 8), nn.GELU(), nn.Linear(8, 4))
    out = []
    opt = torch.optim.Adam(teacher.parameters(), lr=3e-3)
    ce = nn.CrossEntropyLoss(label_smoothing=0.1)
    for _ in range(3):
        out += train_epoch(teacher, x, y, opt, lambda logits, xb, yb: ce(logits, yb))
    teacher.eval()
    T, alpha = 4.0, 0.7
    kl = nn.KLDivLoss(reduction="batchmean")
    kl_log = nn.KLDivLoss(reduction="batchmean", log_target=True)

    def distill(logits, xb, yb, log_target=False):
        with torch.no_grad():
            t_logits = teacher(xb)
        if log_target:
            soft = kl_log(F.log_softmax(logits / T, dim=1), F.log_softmax(t_logits / T, dim=1))
        else:
            soft = kl(F.log_softmax(logits / T, dim=1), F.softmax(t_logits / T, dim=1))
        return alpha * soft * T * T + (1 - alpha) * F.cross_entropy(logits, yb)

    opt = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=1e-3)
    for epoch in range(4):
        log_target = epoch % 2 == 1
        out += train_epoch(student, x, y, opt, lambda lg, xb, yb, lt=log_target: distill(lg, xb, yb, log_target=lt))
        sched.step()
        out.append(sched.get_last_lr()[0])
    with torch.no_grad():
        s, t_ = student(x), teacher(x)
        out += [(s.argmax(1) == y).float().mean().item(), (t_.argmax(1) == y).float().mean().item(),
                (s.argmax(1) == t_.argmax(1)).float().mean().item()]
        # The reductions of kl_div, and the functional form with log_target.
        p, q = F.log_softmax(s[:8], 1), F.log_softmax(t_[:8], 1)
        for red in ("sum", "mean", "batchmean", "none"):
            out += F.kl_div(p, q, reduction=red, log_target=True).flatten()[:4].tolist()
        out.append(F.kl_div(p, q.exp(), reduction="sum").item())
    return out
