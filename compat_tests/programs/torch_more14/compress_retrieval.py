"""Compressing a small retrieval encoder, as in model-compression tutorials and Stack Overflow answers: an embedding
MLP trained with a cosine-similarity contrastive objective, nearest neighbours from torch.cdist / F.pdist /
F.cosine_similarity, then global magnitude pruning (prune.global_unstructured with L1Unstructured, per-layer
l1_unstructured with amount as a count, prune.remove) and dynamic int8 quantization
(torch.ao.quantization.quantize_dynamic on the Linear layers), the compressed models' outputs compared with
torch.testing.assert_close; data shuffling made reproducible with torch.Generator get_state / set_state."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 16)
        self.proj = nn.Linear(16, 4)

    def forward(self, x):
        return self.proj(F.relu(self.fc2(F.relu(self.fc1(x)))))


def main():
    torch.manual_seed(0)
    protos = torch.randn(4, 6)
    labels = torch.arange(4).repeat_interleave(8)
    data = protos[labels] + 0.3 * torch.randn(32, 6)
    gen = torch.Generator().manual_seed(11)
    saved = gen.get_state()
    first = torch.randperm(32, generator=gen)
    gen.set_state(saved)
    again = torch.randperm(32, generator=gen)
    out = [torch.equal(first, again), str(saved.dtype), str(tuple(saved.shape))]

    model = Encoder()
    opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    for _ in range(3):
        order = torch.randperm(32, generator=gen)
        for batch in order.view(2, 16):
            emb = F.normalize(model(data[batch]), dim=1)
            sim = emb @ emb.T / 0.5
            same = labels[batch].unsqueeze(0) == labels[batch].unsqueeze(1)
            sim = sim.masked_fill(torch.eye(16, dtype=torch.bool), -1e9)
            log_prob = sim.log_softmax(dim=1)
            loss = -(log_prob * (same.float() - torch.eye(16))).sum(1).div((same.sum(1) - 1).clamp_min(1)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())

    model.eval()
    with torch.no_grad():
        emb = model(data)
        dist = torch.cdist(emb, emb)
        dist.fill_diagonal_(float("inf"))
        nearest = dist.argmin(1)
        cos = F.cosine_similarity(emb.unsqueeze(1), emb.unsqueeze(0), dim=-1)
        pairs = F.pdist(emb)
    out += [(labels[nearest] == labels).float().mean().item(), pairs.shape[0], pairs.sum().item(),
            *cos[0, :5].tolist(), *torch.cdist(emb[:3], emb[3:6], p=1).flatten().tolist()]
    out += F.cosine_similarity(emb[:4], emb[4:8], dim=1, eps=1e-6).tolist()

    reference = model(data).detach()
    prune.global_unstructured([(model.fc1, "weight"), (model.fc2, "weight")], pruning_method=prune.L1Unstructured,
                              amount=0.4)
    prune.l1_unstructured(model.proj, name="weight", amount=10)
    zeros = [int((m.weight == 0).sum()) for m in (model.fc1, model.fc2, model.proj)]
    out += zeros + [str(sorted(n for n, _ in model.fc1.named_buffers())), hasattr(model.fc1, "weight_orig")]
    with torch.no_grad():
        pruned_out = model(data)
    out += [(pruned_out - reference).abs().mean().item()]
    for m in (model.fc1, model.fc2, model.proj):
        prune.remove(m, "weight")
    out += [str(sorted(n for n, _ in model.named_parameters())), int((model.fc2.weight == 0).sum())]

    quantized = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
    with torch.no_grad():
        q_out = quantized(data)
        f_out = model(data)
    torch.testing.assert_close(q_out, f_out, rtol=0.1, atol=0.1)
    out += [str(type(quantized.fc1).__name__), str(q_out.dtype), *q_out[:2].flatten().tolist()]
    out += [(q_out - f_out).abs().max().item()]
    try:
        torch.testing.assert_close(q_out, f_out, rtol=0.0, atol=1e-7)
    except AssertionError as err:
        out.append(str(err).splitlines()[0])
    return out
