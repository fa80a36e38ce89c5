"""Beam-search decoding for a tiny GRU encoder-decoder trained on sequence reversal: teacher forcing with
nn.GRU over packed-free padded batches and Bahdanau-style additive attention (bmm, masked_fill with -inf on pad
positions, softmax), NLLLoss with ignore_index on log_softmax outputs, Adam with ReduceLROnPlateau; then greedy
decoding and a batched beam search (log-prob accumulation, topk over the flattened beam x vocab scores,
torch.div(rounding_mode="floor") and remainder to recover beams and tokens, index_select of hidden states,
length-normalised finished hypotheses)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS, VOCAB = 0, 1, 2, 10


class Seq2Seq(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.src_embed = nn.Embedding(VOCAB, 16, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(VOCAB, 16, padding_idx=PAD)
        self.encoder = nn.GRU(16, hidden, batch_first=True)
        self.decoder = nn.GRUCell(16 + hidden, hidden)
        self.w_enc = nn.Linear(hidden, hidden, bias=False)
        self.w_dec = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, 1, bias=False)
        self.out = nn.Linear(2 * hidden, VOCAB)

    def encode(self, src):
        enc, h = self.encoder(self.src_embed(src))
        return enc, h[0], src == PAD

    def step(self, token, h, enc, pad_mask):
        scores = self.v(torch.tanh(self.w_enc(enc) + self.w_dec(h).unsqueeze(1))).squeeze(2)
        attn = scores.masked_fill(pad_mask, float("-inf")).softmax(dim=1)
        context = torch.bmm(attn.unsqueeze(1), enc).squeeze(1)
        h = self.decoder(torch.cat([self.tgt_embed(token), context], dim=1), h)
        return F.log_softmax(self.out(torch.cat([h, context], dim=1)), dim=-1), h

    def forward(self, src, tgt_in):
        enc, h, pad_mask = self.encode(src)
        outs = []
        for t in range(tgt_in.shape[1]):
            logp, h = self.step(tgt_in[:, t], h, enc, pad_mask)
            outs.append(logp)
        return torch.stack(outs, dim=1)


def make_batch(n, generator):
    lengths = torch.randint(3, 6, (n,), generator=generator)
    src = torch.full((n, 5), PAD)
    tgt = torch.full((n, 7), PAD)
    for i, length in enumerate(lengths.tolist()):
        seq = torch.randint(3, VOCAB, (length,), generator=generator)
        src[i, :length] = seq
        tgt[i, 0] = BOS
        tgt[i, 1:length + 1] = seq.flip(0)
        tgt[i, length + 1] = EOS
    return src, tgt


def beam_search(model, src, beam=3, max_len=7):
    enc, h, pad_mask = model.encode(src)
    n = src.shape[0]
    enc, pad_mask, h = (t.repeat_interleave(beam, dim=0) for t in (enc, pad_mask, h))
    scores = torch.full((n, beam), float("-inf"))
    scores[:, 0] = 0.0
    tokens = torch.full((n * beam, 1), BOS)
    finished = torch.zeros(n * beam, dtype=torch.bool)
    for _ in range(max_len):
        logp, h = model.step(tokens[:, -1], h, enc, pad_mask)
        logp = torch.where(finished.unsqueeze(1), torch.full_like(logp, float("-inf")).index_fill(1,
                           torch.tensor([PAD]), 0.0), logp)
        total = (scores.reshape(-1, 1) + logp).reshape(n, beam * VOCAB)
        scores, flat = total.topk(beam, dim=1)
        beam_idx = torch.div(flat, VOCAB, rounding_mode="floor")
        token = flat.remainder(VOCAB)
        rows = (beam_idx + torch.arange(n).unsqueeze(1) * beam).reshape(-1)
        tokens = torch.cat([tokens.index_select(0, rows), token.reshape(-1, 1)], dim=1)
        h = h.index_select(0, rows)
        finished = finished.index_select(0, rows) | (token.reshape(-1) == EOS)
        if finished.all():
            break
    lengths = ((tokens != PAD) & (tokens != BOS)).sum(1).clamp(min=1).reshape(n, beam).float()
    best = (scores / lengths).argmax(dim=1)
    return tokens.reshape(n, beam, -1)[torch.arange(n), best], scores


def main():
    torch.manual_seed(29)
    g = torch.Generator().manual_seed(29)
    model = Seq2Seq()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    criterion = nn.NLLLoss(ignore_index=PAD)
    out = []
    for _epoch in range(12):
        src, tgt = make_batch(16, g)
        logp = model(src, tgt[:, :-1])
        loss = criterion(logp.reshape(-1, VOCAB), tgt[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        sched.step(loss.item())
        out += [loss.item(), opt.param_groups[0]["lr"]]
    model.eval()
    src, tgt = make_batch(4, g)
    with torch.no_grad():
        best, scores = beam_search(model, src)
        enc, h, pad_mask = model.encode(src)
        token, greedy = torch.full((4,), BOS), []
        for _ in range(6):
            logp, h = model.step(token, h, enc, pad_mask)
            token = logp.argmax(1)
            greedy.append(token)
    out += best.flatten().tolist() + scores.flatten().tolist() + torch.stack(greedy, 1).flatten().tolist()
    return out
