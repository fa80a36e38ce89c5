"""A causal transformer language model and a seq2seq nn.Transformer: generate_square_subsequent_mask, is_causal,
tgt/memory key padding masks, norm_first layers with GELU, MultiheadAttention weights (averaged and per head),
F.scaled_dot_product_attention with a causal mask and dropout off, label-smoothed loss with ignore_index, and
greedy generation with topk / multinomial sampling under a generator."""

import torch
import torch.nn as nn
import torch.nn.functional as F

V, PAD = 16, 0


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.qkv, self.proj, self.heads = nn.Linear(d, 3 * d), nn.Linear(d, d), heads

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).contiguous().view(b, t, d))


class GPT(nn.Module):
    def __init__(self, d=16, heads=2, layers=2, block=8):
        super().__init__()
        self.tok = nn.Embedding(V, d)
        self.pos = nn.Parameter(torch.zeros(1, block, d))
        self.blocks = nn.ModuleList(nn.ModuleDict({"ln1": nn.LayerNorm(d), "attn": CausalSelfAttention(d, heads),
                                                   "ln2": nn.LayerNorm(d),
                                                   "mlp": nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(),
                                                                        nn.Linear(4 * d, d))})
                                    for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, V, bias=False)
        self.head.weight = self.tok.weight
        self.apply(self._init)

    @staticmethod
    def _init(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        x = self.tok(idx) + self.pos[:, :idx.size(1)]
        for block in self.blocks:
            x = x + block["attn"](block["ln1"](x))
            x = x + block["mlp"](block["ln2"](x))
        logits = self.head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=PAD)
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, steps, generator, top_k=4):
        for _ in range(steps):
            logits, _ = self(idx[:, -8:])
            logits = logits[:, -1, :] / 0.8
            v, _ = torch.topk(logits, top_k)
            logits[logits < v[:, [-1]]] = -float("inf")
            probs = F.softmax(logits, dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1, generator=generator)), dim=1)
        return idx


def main():
    torch.manual_seed(1337)
    data = torch.tensor([(3 * i) % (V - 1) + 1 for i in range(200)])
    model = GPT()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.95), weight_decay=0.1)
    out = []
    for _ in range(10):
        ix = torch.randint(len(data) - 9, (8,))
        xb = torch.stack([data[i:i + 8] for i in ix])
        yb = torch.stack([data[i + 1:i + 9] for i in ix])
        yb[:, :2] = PAD
        _, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        out.append(loss.item())
    model.eval()
    out += model.generate(data[:3].unsqueeze(0), 6, torch.Generator().manual_seed(0))[0].tolist()

    # Seq2seq nn.Transformer with masks.
    torch.manual_seed(2)
    d = 16
    emb = nn.Embedding(V, d, padding_idx=PAD)
    transformer = nn.Transformer(d_model=d, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=32,
                                 dropout=0.1, activation="gelu", batch_first=True, norm_first=True)
    head = nn.Linear(d, V)
    params = list(emb.parameters()) + list(transformer.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=1e-3)
    src = torch.randint(1, V, (4, 6))
    src[0, 4:] = PAD
    tgt = torch.flip(src, [1])
    tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt_in.size(1))
    out.append(str(tgt_mask))
    criterion = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)
    for _ in range(5):
        transformer.train()
        h = transformer(emb(src), emb(tgt_in), tgt_mask=tgt_mask, src_key_padding_mask=src == PAD,
                        tgt_key_padding_mask=tgt_in == PAD, memory_key_padding_mask=src == PAD, tgt_is_causal=True)
        loss = criterion(head(h).reshape(-1, V), tgt_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    mha = nn.MultiheadAttention(d, 2, batch_first=True)
    q = emb(src).detach()
    _, averaged = mha(q, q, q, key_padding_mask=src == PAD)
    _, per_head = mha(q, q, q, attn_mask=tgt_mask.new_zeros(6, 6).bool(), average_attn_weights=False)
    out += [averaged.sum().item(), averaged[0, :, 4:].abs().sum().item(), per_head.shape[1], per_head.std().item()]
    return out


if __name__ == "__main__":
    print(main())
