"""A text classifier on nn.TransformerEncoder: Embedding(padding_idx), a sinusoidal positional encoding kept in a
buffer (register_buffer), src_key_padding_mask, masked mean pooling, AdamW with a linear-warmup LambdaLR
(transformers' get_linear_schedule_with_warmup), gradient clipping, and a state_dict that holds the buffer."""

import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):  # x: (seq, batch, d_model)
        return self.dropout(x + self.pe[:x.size(0)])


class TextClassifier(nn.Module):
    def __init__(self, vocab, d_model=16, nhead=2, layers=2, classes=2, pad=0):
        super().__init__()
        self.pad = pad
        self.embedding = nn.Embedding(vocab, d_model, padding_idx=pad)
        self.pos = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=32, dropout=0.1)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, classes)
        self.d_model = d_model

    def forward(self, tokens):  # tokens: (batch, seq)
        mask = tokens == self.pad
        x = self.embedding(tokens.t()) * math.sqrt(self.d_model)
        x = self.encoder(self.pos(x), src_key_padding_mask=mask)
        keep = (~mask).t().unsqueeze(-1).float()
        pooled = (x * keep).sum(0) / keep.sum(0)
        return self.head(pooled)


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def make_batch(gen, n=16, vocab=20, max_len=10):
    lengths = torch.randint(3, max_len + 1, (n,), generator=gen)
    tokens = torch.randint(1, vocab, (n, max_len), generator=gen)
    labels = (tokens[:, 0] > vocab // 2).long()  # the class is set by the first token
    positions = torch.arange(max_len).expand(n, max_len)
    tokens = tokens.masked_fill(positions >= lengths.unsqueeze(1), 0)
    return tokens, labels


def main():
    torch.manual_seed(7)
    gen = torch.Generator().manual_seed(11)
    model = TextClassifier(vocab=20)
    no_decay = ["bias", "norm"]
    groups = [{"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
               "weight_decay": 0.01},
              {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
               "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=3e-3)
    scheduler = get_linear_schedule_with_warmup(optimizer, 3, 12)
    loss_fn = nn.CrossEntropyLoss()
    out = [len(groups[0]["params"]), len(groups[1]["params"])]
    for _ in range(12):
        model.train()
        tokens, labels = make_batch(gen)
        loss = loss_fn(model(tokens), labels)
        optimizer.zero_grad()
        loss.backward()
        out.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
        optimizer.step()
        scheduler.step()
        out.append(loss.item())
        out.append(scheduler.get_last_lr()[0])
    model.eval()
    with torch.no_grad():
        tokens, labels = make_batch(gen, n=32)
        logits = model(tokens)
        out.append(loss_fn(logits, labels).item())
        out.append((logits.argmax(-1) == labels).sum().item())
    sd = model.state_dict()
    out.append(len(sd))
    out.append(",".join(k for k in sd if "layers.0" not in k))
    out.append(model.embedding.weight[0].abs().sum().item())
    return out


if __name__ == "__main__":
    print(main())
