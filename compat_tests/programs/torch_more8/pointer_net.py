"""A Pointer Network that learns to sort numbers (as in the pointer-networks-pytorch repositories): an LSTM encoder
over embedded inputs, an LSTMCell decoder with additive (Bahdanau) attention whose scores are the output
distribution over input positions, already-chosen positions masked with masked_fill(-inf) via a boolean mask
updated by scatter, teacher forcing from the target permutation (torch.argsort) with torch.gather of the encoder
states, greedy decoding with argmax, sequence accuracy; F.nll_loss over log_softmax, Adam, clip_grad_value_,
and a beam-free sampling decode through torch.distributions.Categorical with log_prob for a REINFORCE baseline."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class PointerNet(nn.Module):
    def __init__(self, hidden=24):
        super().__init__()
        self.embed = nn.Linear(1, hidden)
        self.encoder = nn.LSTM(hidden, hidden, batch_first=True)
        self.decoder = nn.LSTMCell(hidden, hidden)
        self.w_enc = nn.Linear(hidden, hidden, bias=False)
        self.w_dec = nn.Linear(hidden, hidden, bias=False)
        self.v = nn.Parameter(torch.empty(hidden).uniform_(-0.1, 0.1))
        self.start = nn.Parameter(torch.zeros(hidden))

    def forward(self, x, targets=None, sample_generator=None):
        b, n = x.shape
        emb = self.embed(x.unsqueeze(-1))
        enc, (h, c) = self.encoder(emb)
        h, c = h[0], c[0]
        enc_proj = self.w_enc(enc)
        chosen = torch.zeros(b, n, dtype=torch.bool)
        dec_in = self.start.expand(b, -1)
        log_probs, picks = [], []
        for step in range(n):
            h, c = self.decoder(dec_in, (h, c))
            scores = torch.tanh(enc_proj + self.w_dec(h).unsqueeze(1)) @ self.v
            scores = scores.masked_fill(chosen, float("-inf"))
            logp = F.log_softmax(scores, dim=-1)
            if targets is not None:
                pick = targets[:, step]
            elif sample_generator is not None:
                pick = torch.multinomial(logp.exp(), 1, generator=sample_generator).squeeze(1)
            else:
                pick = logp.argmax(-1)
            log_probs.append(logp)
            picks.append(pick)
            chosen = chosen.scatter(1, pick.unsqueeze(1), True)
            dec_in = emb.gather(1, pick[:, None, None].expand(-1, 1, emb.shape[-1])).squeeze(1)
        return torch.stack(log_probs, 1), torch.stack(picks, 1)


def sorted_pairs(x, picks):
    """The fraction of adjacent picked values in ascending order (the REINFORCE reward)."""
    v = x.gather(1, picks)
    return (v[:, 1:] >= v[:, :-1]).float().mean(1)


def main():
    torch.manual_seed(8)
    g = torch.Generator().manual_seed(8)
    model = PointerNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    out = []
    for _ in range(5):
        x = torch.rand(16, 6, generator=g)
        targets = torch.argsort(x, dim=1)
        log_probs, _ = model(x, targets)
        loss = F.nll_loss(log_probs.reshape(-1, 6), targets.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 0.5)
        opt.step()
        out.append(loss.item())
    with torch.no_grad():
        x = torch.rand(32, 6, generator=g)
        _, picks = model(x)
        ordered = x.gather(1, picks)
        out += [(picks == x.argsort(1)).all(1).float().mean().item(),
                (ordered[:, 1:] >= ordered[:, :-1]).float().mean().item(),
                picks.sort(1).values.eq(torch.arange(6)).all().float().item()]
    # REINFORCE fine-tuning: reward = fraction of correctly ordered adjacent pairs, greedy decode as baseline.
    for _ in range(3):
        x = torch.rand(16, 6, generator=g)
        log_probs, picks = model(x, sample_generator=g)
        with torch.no_grad():
            _, greedy = model(x)
        advantage = sorted_pairs(x, picks) - sorted_pairs(x, greedy)
        chosen_logp = torch.distributions.Categorical(logits=log_probs).log_prob(picks).sum(1)
        loss = -(advantage * chosen_logp).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), sorted_pairs(x, picks).mean().item()]
    return out
