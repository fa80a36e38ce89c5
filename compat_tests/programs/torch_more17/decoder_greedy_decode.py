"""A toy "reverse the sequence" seq2seq with nn.TransformerEncoder / nn.TransformerDecoder (batch_first, norm_first
decoder), nn.Transformer.generate_square_subsequent_mask as the causal mask, key-padding masks for padded source
tokens, teacher forcing with a shifted target, label-smoothed cross entropy ignoring the pad index, gradient
clipping, then a greedy decoding loop in eval mode growing the output one token at a time."""

import math

import torch
import torch.nn as nn

PAD, BOS, EOS = 0, 1, 2
VOCAB = 10


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=32):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(1)]


class Seq2Seq(nn.Module):
    def __init__(self, d_model=16, nhead=2):
        super().__init__()
        self.d_model = d_model
        self.embed = nn.Embedding(VOCAB, d_model, padding_idx=PAD)
        self.pos = PositionalEncoding(d_model)
        enc_layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=32, dropout=0.0, batch_first=True)
        dec_layer = nn.TransformerDecoderLayer(d_model, nhead, dim_feedforward=32, dropout=0.0, batch_first=True,
                                               norm_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, num_layers=1, enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(dec_layer, num_layers=2, norm=nn.LayerNorm(d_model))
        self.out = nn.Linear(d_model, VOCAB)

    def encode(self, src):
        pad_mask = src == PAD
        return self.encoder(self.pos(self.embed(src) * math.sqrt(self.d_model)), src_key_padding_mask=pad_mask), \
            pad_mask

    def decode(self, tgt, memory, memory_pad):
        causal = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        h = self.decoder(self.pos(self.embed(tgt) * math.sqrt(self.d_model)), memory, tgt_mask=causal,
                         tgt_is_causal=True, memory_key_padding_mask=memory_pad)
        return self.out(h)

    def forward(self, src, tgt_in):
        memory, pad = self.encode(src)
        return self.decode(tgt_in, memory, pad)


def make_batch(gen, batch=8, max_len=5):
    lengths = torch.randint(2, max_len + 1, (batch,), generator=gen)
    src = torch.full((batch, max_len), PAD)
    tgt = torch.full((batch, max_len + 2), PAD)
    for i, n in enumerate(lengths.tolist()):
        seq = torch.randint(3, VOCAB, (n,), generator=gen)
        src[i, :n] = seq
        tgt[i, 0] = BOS
        tgt[i, 1:n + 1] = seq.flip(0)
        tgt[i, n + 1] = EOS
    return src, tgt


@torch.no_grad()
def greedy_decode(model, src, max_len=7):
    memory, pad = model.encode(src)
    ys = torch.full((src.size(0), 1), BOS)
    for _ in range(max_len - 1):
        logits = model.decode(ys, memory, pad)[:, -1]
        next_token = logits.argmax(dim=-1, keepdim=True)
        ys = torch.cat([ys, next_token], dim=1)
    return ys


def main():
    torch.manual_seed(0)
    out = []
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    out.append(str(mask))
    model = Seq2Seq()
    gen = torch.Generator().manual_seed(0)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)
    model.train()
    for step in range(12):
        src, tgt = make_batch(gen)
        logits = model(src, tgt[:, :-1])
        loss = criterion(logits.reshape(-1, VOCAB), tgt[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 3 == 0:
            out += [loss.item(), norm.item()]
    model.eval()
    src, tgt = make_batch(gen, batch=3)
    decoded = greedy_decode(model, src)
    out.append(str(src))
    out.append(str(decoded))
    with torch.no_grad():
        logits = model(src, tgt[:, :-1])
    out += logits.log_softmax(-1)[0, :3].max(-1).values.tolist()
    return out
