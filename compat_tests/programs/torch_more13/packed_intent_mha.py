"""A joint intent/slot tagger in the style of SNIPS/ATIS tutorials: variable-length utterances padded by a collate
function, a BiGRU fed through pack_padded_sequence(enforce_sorted=False) and unpacked with pad_packed_sequence to a
fixed total_length, then nn.MultiheadAttention (batch_first) with both a key_padding_mask and a boolean causal
attn_mask, once with need_weights=False and once returning per-head weights (average_attn_weights=False)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

MAX_LEN = 7


class Tagger(nn.Module):
    def __init__(self, vocab=15, dim=8, slots=4, intents=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.rnn = nn.GRU(dim, dim, batch_first=True, bidirectional=True)
        self.attn = nn.MultiheadAttention(2 * dim, num_heads=2, dropout=0.0, batch_first=True)
        self.slot = nn.Linear(2 * dim, slots)
        self.intent = nn.Linear(2 * dim, intents)

    def forward(self, ids, lengths, per_head=False):
        packed = pack_padded_sequence(self.embed(ids), lengths, batch_first=True, enforce_sorted=False)
        out, h = self.rnn(packed)
        out, out_lengths = pad_packed_sequence(out, batch_first=True, total_length=MAX_LEN)
        pad = torch.arange(MAX_LEN)[None, :] >= out_lengths[:, None]
        causal = torch.triu(torch.ones(MAX_LEN, MAX_LEN, dtype=torch.bool), diagonal=1)
        if per_head:
            ctx, weights = self.attn(out, out, out, key_padding_mask=pad, attn_mask=causal,
                                     need_weights=True, average_attn_weights=False)
        else:
            ctx, weights = self.attn(out, out, out, key_padding_mask=pad, attn_mask=causal, need_weights=False)
        pooled = torch.cat([h[0], h[1]], dim=-1)
        return self.slot(ctx + out), self.intent(pooled), weights, out_lengths, packed


def collate(batch):
    seqs, slots, intents = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return (pad_sequence(seqs, batch_first=True), pad_sequence(slots, batch_first=True, padding_value=-100),
            torch.stack(intents), lengths)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    data = []
    for n in [3, 7, 5, 2, 6, 4]:
        ids = torch.randint(1, 15, (n,), generator=g)
        data.append((ids, ids % 4, ids[0] % 3))
    ids, slots, intents, lengths = collate(data)
    model = Tagger()
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    out = [str(tuple(ids.shape)), str(lengths.tolist())]
    for _ in range(6):
        slot_logits, intent_logits, weights, out_lengths, packed = model(ids, lengths)
        slot_loss = F.cross_entropy(slot_logits.reshape(-1, 4), slots.reshape(-1), ignore_index=-100)
        loss = slot_loss + F.cross_entropy(intent_logits, intents)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [slot_loss.item(), loss.item()]
    out += [str(weights), str(out_lengths.tolist()), str(packed.batch_sizes.tolist()),
            str(packed.sorted_indices.tolist()), str(packed.unsorted_indices.tolist())]
    with torch.no_grad():
        _, _, weights, _, _ = model(ids, lengths, per_head=True)
    out += [str(tuple(weights.shape)), weights[0, :, :, 3:].abs().sum().item()]
    out += weights[1, 0, 3].tolist() + weights[3, 1].sum(-1).tolist()
    out += slot_logits[0, 2].tolist() + model.attn.in_proj_weight.grad[:2, :3].flatten().tolist()
    return out
