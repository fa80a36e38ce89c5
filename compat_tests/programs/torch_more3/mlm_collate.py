"""BERT-style masked-language-model data collation (as in DataCollatorForLanguageModeling): special tokens and
padding excluded through a probability matrix with masked_fill_, torch.bernoulli with a seeded Generator for the
15% selection and the 80/10/10 split into [MASK] / random token / unchanged, labels of -100 everywhere else,
a tiny encoder trained with CrossEntropyLoss(ignore_index=-100) and an attention padding mask."""

import torch
import torch.nn as nn

PAD, CLS, SEP, MASK, VOCAB = 0, 1, 2, 3, 20


def make_batch(lengths, generator):
    seqs = [torch.cat([torch.tensor([CLS]), torch.randint(4, VOCAB, (n,), generator=generator), torch.tensor([SEP])])
            for n in lengths]
    return nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=PAD)


def mask_tokens(inputs, generator, mlm_probability=0.15):
    labels = inputs.clone()
    inputs = inputs.clone()
    probability_matrix = torch.full(labels.shape, mlm_probability)
    special = (inputs == PAD) | (inputs == CLS) | (inputs == SEP)
    probability_matrix.masked_fill_(special, value=0.0)
    masked_indices = torch.bernoulli(probability_matrix, generator=generator).bool()
    labels[~masked_indices] = -100
    indices_replaced = torch.bernoulli(torch.full(labels.shape, 0.8), generator=generator).bool() & masked_indices
    inputs[indices_replaced] = MASK
    indices_random = (torch.bernoulli(torch.full(labels.shape, 0.5), generator=generator).bool() & masked_indices
                      & ~indices_replaced)
    random_words = torch.randint(VOCAB, labels.shape, dtype=torch.long, generator=generator)
    inputs[indices_random] = random_words[indices_random]
    return inputs, labels


class TinyBert(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, dim, padding_idx=PAD)
        self.pos = nn.Embedding(16, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.mlm = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.LayerNorm(dim), nn.Linear(dim, VOCAB))

    def forward(self, ids):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        h = self.encoder(self.tok(ids) + self.pos(pos), src_key_padding_mask=ids.eq(PAD))
        return self.mlm(h)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(42)
    model = TinyBert()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    loss_fn = nn.CrossEntropyLoss(ignore_index=-100)
    out = []
    for step in range(8):
        batch = make_batch([5 + (step + i) % 7 for i in range(6)], g)
        inputs, labels = mask_tokens(batch, g, mlm_probability=0.3)
        if step == 0:
            out += inputs.flatten().tolist() + labels.flatten().tolist()
        logits = model(inputs)
        loss = loss_fn(logits.view(-1, VOCAB), labels.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        selected = labels != -100
        out += [loss.item(), selected.sum().item(), (inputs == MASK).sum().item()]
        acc = (logits.argmax(-1)[selected] == labels[selected]).float().mean()
        out.append(acc.item())
    out.append(model.tok.weight[PAD].abs().sum().item())
    return out
