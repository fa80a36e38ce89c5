"""A BiLSTM-CRF sequence tagger (the PyTorch NLP tutorial, batched): an embedding and a bidirectional LSTM over
padded sentences giving emission scores, a CRF with a learnable transition matrix and start/end scores, the
partition function by the forward algorithm with logsumexp and masking over time, the gold-path score by gather,
negative log-likelihood trained with SGD + weight decay, and Viterbi decoding with max / argmax back-pointers."""

import torch
import torch.nn as nn


class BiLSTMCRF(nn.Module):
    def __init__(self, vocab, tags, emb=16, hidden=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.emit = nn.Linear(2 * hidden, tags)
        self.transitions = nn.Parameter(torch.randn(tags, tags) * 0.1)
        self.start = nn.Parameter(torch.zeros(tags))
        self.end = nn.Parameter(torch.zeros(tags))

    def emissions(self, words):
        return self.emit(self.lstm(self.embed(words))[0])

    def log_partition(self, em, mask):
        alpha = self.start + em[:, 0]
        for i in range(1, em.shape[1]):
            nxt = torch.logsumexp(alpha.unsqueeze(2) + self.transitions.unsqueeze(0) + em[:, i].unsqueeze(1), dim=1)
            alpha = torch.where(mask[:, i].unsqueeze(1), nxt, alpha)
        return torch.logsumexp(alpha + self.end, dim=1)

    def gold_score(self, em, tags, mask):
        emit = em.gather(2, tags.unsqueeze(2)).squeeze(2)
        trans = self.transitions[tags[:, :-1], tags[:, 1:]]
        score = (emit * mask).sum(1) + (trans * mask[:, 1:]).sum(1) + self.start[tags[:, 0]]
        last = tags.gather(1, (mask.sum(1).long() - 1).unsqueeze(1)).squeeze(1)
        return score + self.end[last]

    def nll(self, words, tags, mask):
        em = self.emissions(words)
        return (self.log_partition(em, mask) - self.gold_score(em, tags, mask.float())).mean()

    def viterbi(self, words, mask):
        em = self.emissions(words)
        score, pointers = self.start + em[:, 0], []
        for i in range(1, em.shape[1]):
            best, arg = (score.unsqueeze(2) + self.transitions.unsqueeze(0)).max(dim=1)
            pointers.append(torch.where(mask[:, i].unsqueeze(1), arg, torch.arange(em.shape[2]).expand_as(arg)))
            score = torch.where(mask[:, i].unsqueeze(1), best + em[:, i], score)
        score = score + self.end
        best_last = score.argmax(dim=1)
        path = [best_last]
        for ptr in reversed(pointers):
            best_last = ptr.gather(1, best_last.unsqueeze(1)).squeeze(1)
            path.append(best_last)
        return score.max(dim=1).values, torch.stack(path[::-1], dim=1)


def main():
    torch.manual_seed(6)
    vocab, n_tags, batch, length = 20, 5, 6, 7
    lengths = torch.tensor([7, 6, 5, 7, 3, 4])
    mask = torch.arange(length).unsqueeze(0) < lengths.unsqueeze(1)
    words = torch.randint(1, vocab, (batch, length)) * mask
    tags = (words % n_tags) * mask
    model = BiLSTMCRF(vocab, n_tags)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=1e-4)
    out = []
    for _ in range(12):
        loss = model.nll(words, tags, mask)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    with torch.no_grad():
        best, path = model.viterbi(words, mask)
    out += best.tolist() + (path * mask).flatten().tolist()
    out.append(((path == tags) & mask).sum().item() / mask.sum().item())
    out.append(model.transitions.grad.abs().sum().item())
    return out
