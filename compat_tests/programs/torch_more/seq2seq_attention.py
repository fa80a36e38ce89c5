"""Seq2seq with attention (reverse a sequence): a GRU encoder, a decoder with Luong-style dot attention written
with bmm, masked_fill on padding and softmax, teacher forcing chosen with random.random under a seed, NLLLoss with
ignore_index, and greedy decoding under torch.no_grad."""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, SOS, EOS, V = 0, 1, 2, 10


class Encoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.embedding = nn.Embedding(V, hidden, padding_idx=PAD)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, src):
        return self.gru(self.embedding(src))


class AttnDecoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.embedding = nn.Embedding(V, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.concat = nn.Linear(2 * hidden, hidden)
        self.out = nn.Linear(hidden, V)

    def forward(self, token, hidden, enc_out, src_mask):
        output, hidden = self.gru(self.embedding(token).unsqueeze(1), hidden)  # (B, 1, H)
        scores = torch.bmm(output, enc_out.transpose(1, 2))  # (B, 1, S)
        scores = scores.masked_fill(src_mask.unsqueeze(1), float("-inf"))
        attn = F.softmax(scores, dim=-1)
        context = torch.bmm(attn, enc_out)
        concat = torch.tanh(self.concat(torch.cat((output, context), dim=2)))
        return F.log_softmax(self.out(concat.squeeze(1)), dim=1), hidden, attn


def make_batch(gen, n=12, max_len=5):
    lengths = torch.randint(2, max_len + 1, (n,), generator=gen)
    src = torch.full((n, max_len), PAD, dtype=torch.long)
    tgt = torch.full((n, max_len + 1), PAD, dtype=torch.long)
    for i, length in enumerate(lengths.tolist()):
        seq = torch.randint(3, V, (length,), generator=gen)
        src[i, :length] = seq
        tgt[i, :length] = seq.flip(0)
        tgt[i, length] = EOS
    return src, tgt


def main():
    torch.manual_seed(0)
    random.seed(0)
    gen = torch.Generator().manual_seed(1)
    encoder, decoder = Encoder(16), AttnDecoder(16)
    params = list(encoder.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.Adam(params, lr=5e-3)
    criterion = nn.NLLLoss(ignore_index=PAD)
    out = []
    for _step in range(15):
        src, tgt = make_batch(gen)
        enc_out, hidden = encoder(src)
        mask = src == PAD
        token = torch.full((src.size(0),), SOS, dtype=torch.long)
        teacher = random.random() < 0.5
        loss = 0
        for t in range(tgt.size(1)):
            log_probs, hidden, attn = decoder(token, hidden, enc_out, mask)
            loss = loss + criterion(log_probs, tgt[:, t])
            token = tgt[:, t] if teacher else log_probs.argmax(1).detach()
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, max_norm=5.0, norm_type=2)
        optimizer.step()
        out += [loss.item() / tgt.size(1), float(teacher)]
    with torch.no_grad():
        src, tgt = make_batch(gen, n=6)
        enc_out, hidden = encoder(src)
        token = torch.full((6,), SOS, dtype=torch.long)
        decoded = []
        for _ in range(tgt.size(1)):
            log_probs, hidden, attn = decoder(token, hidden, enc_out, src == PAD)
            token = log_probs.argmax(1)
            decoded.append(token)
        out += torch.stack(decoded, 1).flatten().tolist()
        out.append(attn.sum().item())
        out.append(attn.squeeze(1)[src == PAD].abs().sum().item())
    return out


if __name__ == "__main__":
    print(main())
