"""word2vec skip-gram with negative sampling (the classic PyTorch re-implementations): a toy corpus, subsampled
vocabulary counts, the unigram^0.75 noise distribution sampled with torch.multinomial, (center, context) pairs from a
sliding window, center and context nn.Embedding(sparse=True) tables trained by optim.SparseAdam, scores by torch.bmm,
the loss from F.logsigmoid of positive and negative scores, then nearest neighbours by cosine similarity
(F.normalize, mm, topk) and the embeddings' sparse gradient layout."""

import collections

import torch
import torch.nn as nn
import torch.nn.functional as F

CORPUS = ("the king rules the kingdom the queen rules the kingdom the king and the queen live in the castle "
          "a dog chases a cat a cat chases a mouse the dog and the cat live in the house "
          "the prince and the princess live in the castle a mouse lives in the house").split()


class SkipGram(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.center = nn.Embedding(vocab, dim, sparse=True)
        self.context = nn.Embedding(vocab, dim, sparse=True)
        bound = 0.5 / dim
        nn.init.uniform_(self.center.weight, -bound, bound)
        nn.init.zeros_(self.context.weight)

    def forward(self, center, context, negatives):
        c = self.center(center).unsqueeze(2)  # (B, D, 1)
        pos = torch.bmm(self.context(context).unsqueeze(1), c).squeeze()
        neg = torch.bmm(self.context(negatives), c).squeeze(2)
        return -(F.logsigmoid(pos) + F.logsigmoid(-neg).sum(1)).mean()


def main():
    torch.manual_seed(2)
    counts = collections.Counter(CORPUS)
    vocab = sorted(counts, key=lambda w: (-counts[w], w))
    index = {w: i for i, w in enumerate(vocab)}
    ids = torch.tensor([index[w] for w in CORPUS])
    freq = torch.tensor([counts[w] for w in vocab], dtype=torch.float)
    noise = freq.pow(0.75)
    noise /= noise.sum()
    window = 2
    pairs = [(ids[i].item(), ids[j].item()) for i in range(len(ids))
             for j in range(max(0, i - window), min(len(ids), i + window + 1)) if j != i]
    pairs = torch.tensor(pairs)
    model = SkipGram(len(vocab), 12)
    opt = torch.optim.SparseAdam(list(model.parameters()), lr=0.05)
    out = [len(vocab), len(pairs), noise.max().item()]
    for _ in range(15):
        batch = pairs[torch.randperm(len(pairs))[:64]]
        negatives = torch.multinomial(noise, 64 * 5, replacement=True).view(64, 5)
        loss = model(batch[:, 0], batch[:, 1], negatives)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    grad = model.center.weight.grad
    out += [grad.is_sparse, str(grad.layout), grad.coalesce().values().abs().sum().item()]
    with torch.no_grad():
        emb = F.normalize(model.center.weight, dim=1)
        sims = emb @ emb.t()
        sims.fill_diagonal_(-1)
        best = sims[index["king"]].topk(3)
    out += [v.item() for v in best.values] + [" ".join(vocab[i] for i in best.indices.tolist())]
    return out
