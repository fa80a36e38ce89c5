"""Text classification as in the AG_NEWS tutorial: a hand-made vocabulary from a tokenizer, nn.EmbeddingBag with
offsets (mode="mean", then per_sample_weights with mode="sum" and padding_idx), a collate function building
offsets with cumsum, SGD with gradient clipping and StepLR, accuracy by argmax."""

import collections

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

WORDS = {0: "goal match team score win league player coach", 1: "stock market price bank trade profit share fund",
         2: "chip software cloud data model network code robot"}


def tokenize(text):
    return text.lower().replace(",", " ").split()


def make_corpus(generator):
    corpus = []
    for i in range(120):
        label = i % 3
        words = WORDS[label].split()
        n = int(torch.randint(3, 9, (1,), generator=generator))
        picks = torch.randint(0, len(words), (n,), generator=generator).tolist()
        noise = WORDS[(label + 1) % 3].split()[int(torch.randint(0, 8, (1,), generator=generator))]
        corpus.append((label, " ".join(words[p] for p in picks) + ", " + noise))
    return corpus


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, mode="mean", sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(7)
    corpus = make_corpus(g)
    counter = collections.Counter(tok for _, text in corpus for tok in tokenize(text))
    itos = ["<unk>", "<pad>"] + sorted(counter, key=lambda w: (-counter[w], w))
    stoi = {w: i for i, w in enumerate(itos)}

    def collate_batch(batch):
        label_list, text_list, offsets = [], [], [0]
        for label, text in batch:
            label_list.append(label)
            processed = torch.tensor([stoi.get(t, 0) for t in tokenize(text)], dtype=torch.int64)
            text_list.append(processed)
            offsets.append(processed.size(0))
        offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
        return torch.tensor(label_list, dtype=torch.int64), torch.cat(text_list), offsets

    loader = DataLoader(corpus, batch_size=16, shuffle=True, collate_fn=collate_batch)
    model = TextClassificationModel(len(itos), 12, 3)
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=2.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.5)
    out = []
    for _epoch in range(3):
        model.train()
        total_acc, total_count = 0, 0
        for label, text, offsets in loader:
            optimizer.zero_grad()
            predicted_label = model(text, offsets)
            loss = criterion(predicted_label, label)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
            out += [loss.item(), norm.item()]
        scheduler.step()
        out += [total_acc / total_count, scheduler.get_last_lr()[0]]
    model.eval()
    with torch.no_grad():
        label, text, offsets = collate_batch(corpus[:9])
        out += model(text, offsets).flatten().tolist()
        # include_last_offset and a 2-D input (fixed-length bags, offsets None).
        bag = nn.EmbeddingBag.from_pretrained(model.embedding.weight, mode="max", include_last_offset=True)
        out += bag(text, torch.cat([offsets, torch.tensor([text.numel()])])).sum(1).tolist()
        padded = nn.utils.rnn.pad_sequence([torch.tensor([stoi[t] for t in tokenize(t_)]) for _, t_ in corpus[:5]],
                                           batch_first=True, padding_value=1)
        pad_bag = nn.EmbeddingBag(len(itos), 4, mode="sum", padding_idx=1)
        weights = torch.rand(padded.shape, generator=g)
        out += pad_bag(padded, per_sample_weights=weights).flatten().tolist()
        out.append(str(pad_bag))
    return out
