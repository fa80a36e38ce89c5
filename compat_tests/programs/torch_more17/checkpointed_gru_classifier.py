"""Memory-saving training of a text classifier: variable-length sequences padded with pad_sequence, a GRU run on
pack_padded_sequence(enforce_sorted=False) with its final hidden state, an MLP head wrapped in
torch.utils.checkpoint.checkpoint (use_reentrant=False) and a deep residual stack through checkpoint_sequential,
dropout inside the checkpointed part (the recomputation must replay the same mask), and gradients compared with a
run without checkpointing."""

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


class Classifier(nn.Module):
    def __init__(self, vocab=20, emb=6, hidden=8, classes=3, use_checkpoint=True):
        super().__init__()
        self.use_checkpoint = use_checkpoint
        self.embed = nn.Embedding(vocab, emb, padding_idx=0)
        self.gru = nn.GRU(emb, hidden, batch_first=True, bidirectional=True)
        self.stack = nn.Sequential(*[nn.Sequential(nn.Linear(2 * hidden, 2 * hidden), nn.Tanh()) for _ in range(4)])
        self.head = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(), nn.Dropout(0.3), nn.Linear(hidden, classes))

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, batch_first=True, enforce_sorted=False)
        outputs, h = self.gru(packed)
        feats = torch.cat([h[-2], h[-1]], dim=1)
        if self.use_checkpoint:
            feats = checkpoint_sequential(self.stack, 2, feats, use_reentrant=False)
            return checkpoint(self.head, feats, use_reentrant=False), outputs
        return self.head(self.stack(feats)), outputs


def make_batch(gen, n=6):
    lengths = torch.randint(2, 7, (n,), generator=gen)
    seqs = [torch.randint(1, 20, (int(k),), generator=gen) for k in lengths]
    labels = torch.stack([s.sum() % 3 for s in seqs])
    return pad_sequence(seqs, batch_first=True), lengths, labels


def main():
    out = []
    gen = torch.Generator().manual_seed(0)
    tokens, lengths, labels = make_batch(gen)
    out.append(str(tokens))

    torch.manual_seed(0)
    plain = Classifier(use_checkpoint=False)
    torch.manual_seed(0)
    ckpt = Classifier(use_checkpoint=True)
    torch.manual_seed(5)
    loss_plain = nn.functional.cross_entropy(plain(tokens, lengths)[0], labels)
    loss_plain.backward()
    torch.manual_seed(5)
    logits, packed_out = ckpt(tokens, lengths)
    loss_ckpt = nn.functional.cross_entropy(logits, labels)
    loss_ckpt.backward()
    out += [loss_plain.item(), loss_ckpt.item()]
    diffs = [(a.grad - b.grad).abs().max().item() for a, b in zip(plain.parameters(), ckpt.parameters())]
    out.append(max(diffs) < 1e-6)
    padded, out_lengths = pad_packed_sequence(packed_out, batch_first=True)
    out += [str(tuple(padded.shape)), str(out_lengths), padded[0, -1].abs().sum().item()]
    out.append(ckpt.gru.weight_hh_l0_reverse.grad.norm().item())

    opt = torch.optim.Adam(ckpt.parameters(), lr=0.01)
    for step in range(8):
        tokens, lengths, labels = make_batch(gen)
        logits, _ = ckpt(tokens, lengths)
        loss = nn.functional.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(ckpt.parameters(), 2.0)
        opt.step()
        if step % 2 == 0:
            out.append(loss.item())
    ckpt.eval()
    with torch.no_grad():
        probs = ckpt(tokens, lengths)[0].softmax(-1)
    out += probs[0].tolist()
    return out
