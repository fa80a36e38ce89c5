"""Tensor recipes from metrics and preprocessing code: one_hot, confusion matrices with bincount / index_put_
(accumulate), scatter_add_ / scatter_reduce, gather of per-sample scores, topk accuracy, unique with counts,
nonzero / argwhere, meshgrid, repeat_interleave, cumsum/cummax, masked_select, torch.where, argsort, histc,
numpy round trips, in-place arithmetic with type promotion, float formatting of metrics, and item()/tolist()."""

import numpy as np
import torch
import torch.nn.functional as F


def accuracy(output, target, topk=(1,)):
    """The ImageNet example's top-k accuracy."""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        return [correct[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / batch_size) for k in topk]


def main():
    torch.manual_seed(0)
    logits = torch.randn(20, 5)
    target = torch.randint(0, 5, (20,))
    out = [a.item() for a in accuracy(logits, target, topk=(1, 3))]
    pred = logits.argmax(1)
    confusion = torch.bincount(target * 5 + pred, minlength=25).view(5, 5)
    confusion2 = torch.zeros(5, 5, dtype=torch.long).index_put_((target, pred), torch.ones(20, dtype=torch.long),
                                                                 accumulate=True)
    out += confusion.flatten().tolist() + [float(torch.equal(confusion, confusion2))]
    per_class = confusion.diag().float() / confusion.sum(1).clamp(min=1)
    out += per_class.tolist() + [f"mean per-class accuracy {per_class.mean():.4f}"]
    out += F.one_hot(target[:6], num_classes=5).flatten().tolist()
    sums = torch.zeros(5).scatter_add_(0, target, logits[:, 0])
    maxes = torch.full((5,), -1e9).scatter_reduce(0, target, logits[:, 1], reduce="amax", include_self=False)
    out += sums.tolist() + maxes.tolist()
    out += logits.gather(1, target.unsqueeze(1)).squeeze(1).tolist()
    values, counts = torch.unique(target, return_counts=True)
    out += values.tolist() + counts.tolist()
    uniq, inverse = torch.unique(torch.tensor([3, 1, 3, 2, 1]), sorted=True, return_inverse=True)
    out += uniq.tolist() + inverse.tolist()
    out += torch.nonzero(confusion > 0).flatten().tolist() + torch.argwhere(target == 2).flatten().tolist()
    gy, gx = torch.meshgrid(torch.arange(3), torch.arange(4), indexing="ij")
    out += (gy * 4 + gx).flatten().tolist()
    out += torch.repeat_interleave(torch.tensor([1, 2, 3]), torch.tensor([2, 0, 3])).tolist()
    running = logits[:, 0].cumsum(0)
    best, where = logits[:, 1].cummax(0)
    out += running.tolist() + best.tolist() + where.tolist()
    out += torch.masked_select(logits, logits > 1.5).tolist()
    out += torch.where(logits[:, 2] > 0, logits[:, 2], torch.zeros(())).tolist()
    out += torch.argsort(logits[:, 3], descending=True, stable=True).tolist()
    out += torch.histc(logits, bins=6, min=-3, max=3).tolist()
    array = logits.numpy()
    array[0, 0] = 42.0  # shares memory with the tensor
    out.append(logits[0, 0].item())
    back = torch.from_numpy(np.arange(6, dtype=np.int64).reshape(2, 3))
    counts_f = back.float()
    counts_f += 0.5
    back += 1
    mixed = back * 0.5 + torch.tensor(1, dtype=torch.int8)
    out += [str(mixed.dtype), str((back / 2).dtype), str((back // 2).dtype), str(counts_f.dtype)]
    out += mixed.flatten().tolist()
    keep = torch.tensor([True, False, True, False, True])
    out += [str(torch.tensor([1, 2]).float().mean()), str(torch.arange(5)[keep])]
    out.append(repr(torch.linspace(0, 1, 5)))
    out.append(repr(torch.tensor([[1.5, float("nan")], [float("-inf"), 1e10]])))
    return out


if __name__ == "__main__":
    print(main())
