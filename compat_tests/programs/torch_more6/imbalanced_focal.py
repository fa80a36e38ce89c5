"""A Kaggle binary-classification notebook on an imbalanced tabular set: a WeightedRandomSampler built from inverse
class frequencies (replacement, its own generator), a focal loss written from
F.binary_cross_entropy_with_logits(reduction="none") with alpha and gamma, BCEWithLogitsLoss(pos_weight=...) as a
baseline, ReduceLROnPlateau in "max" mode on the validation AUC, ROC-AUC by ranking (argsort, cumsum, trapz), the best
F1 threshold by a broadcast sweep, and the best weights kept by copy.deepcopy(state_dict()).  The Linear before
BatchNorm1d has no bias: the normalization cancels it, so its gradient is round-off noise that Adam amplifies."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler


def focal_loss(logits, targets, alpha=0.25, gamma=2.0):
    bce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = torch.exp(-bce)
    alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (alpha_t * (1 - p_t) ** gamma * bce).mean()


def roc_auc(scores, labels):
    order = torch.argsort(scores, descending=True)
    labels = labels[order]
    tps = torch.cumsum(labels, 0)
    fps = torch.cumsum(1 - labels, 0)
    tpr = torch.cat([torch.zeros(1), tps / tps[-1]])
    fpr = torch.cat([torch.zeros(1), fps / fps[-1]])
    return torch.trapz(tpr, fpr)


def best_f1(probs, labels):
    thresholds = torch.linspace(0.05, 0.95, 19)
    pred = probs.unsqueeze(0) >= thresholds.unsqueeze(1)
    tp = (pred & labels.bool()).sum(1).float()
    precision = tp / pred.sum(1).clamp(min=1)
    recall = tp / labels.sum()
    f1 = 2 * precision * recall / (precision + recall + 1e-8)
    i = torch.argmax(f1)
    return f1[i], thresholds[i]


def main():
    torch.manual_seed(17)
    g = torch.Generator().manual_seed(17)
    n, d = 160, 6
    x = torch.randn(n, d, generator=g)
    y = ((x[:, 0] + 0.5 * x[:, 1] ** 2 + 0.3 * torch.randn(n, generator=g)) > 1.6).float()
    xtr, ytr, xva, yva = x[:120], y[:120], x[120:], y[120:]
    counts = torch.bincount(ytr.long(), minlength=2).float()
    sample_weights = (1.0 / counts)[ytr.long()]
    sampler = WeightedRandomSampler(sample_weights, num_samples=len(ytr), replacement=True,
                                    generator=torch.Generator().manual_seed(4))
    loader = DataLoader(TensorDataset(xtr, ytr), batch_size=40, sampler=sampler)
    model = nn.Sequential(nn.Linear(d, 32, bias=False), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.1),
                          nn.Linear(32, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1)
    baseline = nn.BCEWithLogitsLoss(pos_weight=counts[0] / counts[1])
    out = [counts[0].item(), counts[1].item()]
    best_auc, best_state = -1.0, None
    for _ in range(6):
        model.train()
        for xb, yb in loader:
            logits = model(xb).squeeze(1)
            loss = focal_loss(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.item(), yb.mean().item()]
        model.eval()
        with torch.no_grad():
            val_logits = model(xva).squeeze(1)
            auc = roc_auc(val_logits, yva).item()
            out += [auc, baseline(val_logits, yva).item()]
        sched.step(auc)
        out.append(opt.param_groups[0]["lr"])
        if auc > best_auc:
            best_auc, best_state = auc, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    model.eval()
    with torch.no_grad():
        probs = torch.sigmoid(model(xva).squeeze(1))
    f1, thr = best_f1(probs, yva)
    out += [best_auc, f1.item(), thr.item(), sorted(best_state.keys())[0], int(best_state["1.num_batches_tracked"])]
    return out
