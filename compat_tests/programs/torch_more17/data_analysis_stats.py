"""Exploratory data analysis in tensors, as a Kaggle notebook does it before training: torch.quantile /
nanquantile for percentiles and IQR outliers, histc and histogram, bucketize into bins, searchsorted for
CDF lookups, unique(return_counts / return_inverse), bincount, mode / median / kthvalue, cumulative sums, masked
means with nan handling, and a per-bucket embedding model trained on the binned feature."""

import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    out = []
    ages = (torch.randn(300) * 12 + 40).clamp(18, 90).round()
    income = torch.exp(torch.randn(300) * 0.5 + 10)
    income[::37] = float("nan")

    q = torch.quantile(ages, torch.tensor([0.25, 0.5, 0.75]))
    out += q.tolist()
    iqr = q[2] - q[0]
    outliers = (ages < q[0] - 1.5 * iqr) | (ages > q[2] + 1.5 * iqr)
    out.append(int(outliers.sum()))
    out += [torch.quantile(ages, 0.9, interpolation="lower").item(),
            torch.quantile(ages, 0.9, interpolation="nearest").item(),
            torch.quantile(ages, 0.9, interpolation="midpoint").item()]
    out.append(torch.nanquantile(income, 0.5).item())
    out.append(str(torch.quantile(income, 0.5)))  # nan propagates
    out.append(int(torch.isnan(income).sum()))
    out.append(torch.nanmean(income).item())
    out.append(income.nansum().item())

    out.append(str(torch.histc(ages, bins=8, min=18, max=90)))
    hist = torch.histogram(ages, bins=5)
    out.append(str(hist.hist))
    out.append(str(hist.bin_edges))

    edges = torch.tensor([25.0, 35.0, 50.0, 65.0])
    bucket = torch.bucketize(ages, edges)
    out.append(str(torch.bincount(bucket, minlength=5)))
    out.append(str(torch.bucketize(torch.tensor([25.0, 35.0]), edges, right=True)))

    sorted_ages, order = torch.sort(ages)
    cdf_at = torch.searchsorted(sorted_ages, torch.tensor([30.0, 40.0, 60.0]))
    out.append(str(cdf_at))
    out.append(str(torch.searchsorted(sorted_ages, torch.tensor([40.0]), side="right")))
    out.append(int(order[0]))

    values, inverse, counts = torch.unique(bucket, sorted=True, return_inverse=True, return_counts=True)
    out += [str(values), str(counts), bool(torch.equal(values[inverse], bucket))]
    uc, cc = torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 2, 3, 1, 1]), return_counts=True)
    out += [str(uc), str(cc)]
    mode = torch.mode(ages)
    out += [mode.values.item(), str(torch.median(ages)), torch.kthvalue(ages, 10).values.item()]
    out.append(str(torch.cumsum(torch.bincount(bucket), 0)))
    out.append(str(torch.count_nonzero(ages > 60)))
    std, mean = torch.std_mean(ages)
    out += [std.item(), mean.item(), ages.var(unbiased=False).item()]
    out.append(str(torch.corrcoef(torch.stack([ages, torch.nan_to_num(income, nan=0.0)]))))

    # predict "high income" from the age bucket with a per-bucket embedding
    target = (torch.nan_to_num(income, nan=0.0) > torch.nanquantile(income, 0.5)).float()
    emb = nn.Embedding(5, 1)
    opt = torch.optim.Adam(emb.parameters(), lr=0.1)
    for step in range(15):
        logits = emb(bucket).squeeze(1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            out.append(loss.item())
    out += emb.weight.squeeze(1).tolist()
    return out
