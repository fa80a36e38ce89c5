"""A tabular transformer (TabTransformer / FT-Transformer style): per-column categorical embeddings plus a
column-identity embedding, numerical features tokenised by a per-feature linear map (einsum), a learned [CLS]
token, nn.MultiheadAttention blocks with pre-norm residuals returning per-head weights
(need_weights=True, average_attn_weights=False) and averaged ones, a key_padding_mask for missing columns,
and the attention the CLS token pays to each column."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, dropout=0.1, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Dropout(0.1), nn.Linear(2 * d, d))

    def forward(self, x, pad_mask):
        h = self.norm1(x)
        attn, weights = self.attn(h, h, h, key_padding_mask=pad_mask, need_weights=True,
                                  average_attn_weights=False)
        x = x + attn
        return x + self.ff(self.norm2(x)), weights


class TabTransformer(nn.Module):
    def __init__(self, cardinalities, n_num, d=16, heads=4, depth=2, n_classes=3):
        super().__init__()
        self.cat_embeds = nn.ModuleList(nn.Embedding(c, d) for c in cardinalities)
        self.num_weight = nn.Parameter(torch.randn(n_num, d) * 0.1)
        self.num_bias = nn.Parameter(torch.zeros(n_num, d))
        self.column_embed = nn.Parameter(torch.zeros(1, len(cardinalities) + n_num, d))
        nn.init.trunc_normal_(self.column_embed, std=0.02)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(depth))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, n_classes)

    def forward(self, cats, nums, missing):
        cat_tokens = torch.stack([emb(cats[:, i]) for i, emb in enumerate(self.cat_embeds)], dim=1)
        num_tokens = torch.einsum("bn,nd->bnd", nums, self.num_weight) + self.num_bias
        tokens = torch.cat([cat_tokens, num_tokens], dim=1) + self.column_embed
        x = torch.cat([self.cls.expand(len(cats), -1, -1), tokens], dim=1)
        pad_mask = F.pad(missing, (1, 0), value=False)
        all_weights = []
        for block in self.blocks:
            x, w = block(x, pad_mask)
            all_weights.append(w)
        return self.head(self.norm(x[:, 0])), all_weights


def main():
    torch.manual_seed(23)
    g = torch.Generator().manual_seed(23)
    n = 48
    cards = [4, 6, 3]
    cats = torch.stack([torch.randint(0, c, (n,), generator=g) for c in cards], 1)
    nums = torch.randn(n, 3, generator=g)
    missing = torch.rand(n, 6, generator=g) < 0.15
    nums = nums.masked_fill(missing[:, 3:], 0.0)
    y = (cats[:, 0] + (nums[:, 0] > 0).long()) % 3
    model = TabTransformer(cards, 3)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    out = []
    for _ in range(8):
        model.train()
        logits, _ = model(cats, nums, missing)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits, weights = model(cats, nums, missing)
        x = torch.cat([model.cls.expand(n, -1, -1), torch.zeros(n, 6, 16)], dim=1)
        _, averaged = model.blocks[0].attn(x, x, x, need_weights=True)
        _, none_weights = model.blocks[0].attn(x, x, x, need_weights=False)
    cls_attention = weights[-1][:, :, 0, 1:].mean(dim=1)
    out += [str(tuple(weights[0].shape)), str(tuple(averaged.shape)), str(none_weights)]
    out += [weights[0].sum(-1).mean().item(), (weights[0][:, :, :, 1:] * missing[:, None, None, :]).abs().max().item()]
    out += cls_attention[:3].flatten().tolist() + averaged[0, 0].tolist()
    out.append((logits.argmax(1) == y).float().mean().item())
    return out
