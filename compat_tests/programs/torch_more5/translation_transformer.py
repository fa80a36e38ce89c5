"""Sequence-to-sequence "translation" with nn.Transformer (the PyTorch translation tutorial): token embeddings
scaled by sqrt(d_model), a sinusoidal PositionalEncoding buffer with dropout, generate_square_subsequent_mask for
the decoder, src/tgt key padding masks from the PAD index, teacher forcing with tgt[:, :-1] / tgt[:, 1:],
cross_entropy with ignore_index and label_smoothing, then greedy decoding with model.encode / model.decode
feeding back the argmax token until EOS."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS = 0, 1, 2
VOCAB = 12


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=32):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.transpose(0, 1))

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


class Seq2SeqTransformer(nn.Module):
    def __init__(self, d_model=32, nhead=4, layers=2):
        super().__init__()
        self.d_model = d_model
        self.src_emb = nn.Embedding(VOCAB, d_model, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(VOCAB, d_model, padding_idx=PAD)
        self.pos = PositionalEncoding(d_model)
        self.transformer = nn.Transformer(d_model, nhead, layers, layers, dim_feedforward=64, dropout=0.1,
                                          batch_first=True)
        self.generator = nn.Linear(d_model, VOCAB)

    def embed(self, emb, tokens):
        return self.pos(emb(tokens) * math.sqrt(self.d_model))

    def forward(self, src, tgt):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        out = self.transformer(self.embed(self.src_emb, src), self.embed(self.tgt_emb, tgt), tgt_mask=tgt_mask,
                               src_key_padding_mask=src == PAD, tgt_key_padding_mask=tgt == PAD,
                               memory_key_padding_mask=src == PAD)
        return self.generator(out)

    def encode(self, src):
        return self.transformer.encoder(self.embed(self.src_emb, src), src_key_padding_mask=src == PAD)

    def decode(self, tgt, memory, memory_mask):
        mask = self.transformer.generate_square_subsequent_mask(tgt.size(1), dtype=torch.float32)
        return self.transformer.decoder(self.embed(self.tgt_emb, tgt), memory, tgt_mask=mask,
                                        memory_key_padding_mask=memory_mask)


def make_pairs(n, generator):
    """Target = source reversed, each token shifted by one: a toy language pair of varying lengths."""
    lengths = torch.randint(3, 7, (n,), generator=generator)
    src = torch.full((n, 8), PAD)
    tgt = torch.full((n, 10), PAD)
    for i, length in enumerate(lengths.tolist()):
        words = torch.randint(3, VOCAB - 1, (length,), generator=generator)
        src[i, :length] = words
        tgt[i, : length + 2] = torch.cat([torch.tensor([BOS]), words.flip(0) + 1, torch.tensor([EOS])])
    return src, tgt


def greedy_decode(model, src, max_len=9):
    memory_mask = src == PAD
    memory = model.encode(src)
    ys = torch.full((src.size(0), 1), BOS, dtype=torch.long)
    finished = torch.zeros(src.size(0), dtype=torch.bool)
    for _ in range(max_len):
        out = model.decode(ys, memory, memory_mask)
        next_word = model.generator(out[:, -1]).argmax(dim=-1)
        next_word = next_word.masked_fill(finished, PAD)
        ys = torch.cat([ys, next_word.unsqueeze(1)], dim=1)
        finished |= next_word == EOS
        if finished.all():
            break
    return ys


def main():
    torch.manual_seed(11)
    g = torch.Generator().manual_seed(11)
    src, tgt = make_pairs(16, g)
    model = Seq2SeqTransformer()
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
    out = []
    for _ in range(6):
        model.train()
        logits = model(src, tgt[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), tgt[:, 1:].reshape(-1), ignore_index=PAD,
                               label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        decoded = greedy_decode(model, src[:4])
        memory = model.encode(src[:2])
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    out.append(str(mask.tolist()))  # its -inf entries as text: the suite requires finite numbers
    out += [str(decoded.tolist()), str(mask.dtype), memory.sum().item(), memory.abs().mean().item()]
    return out
