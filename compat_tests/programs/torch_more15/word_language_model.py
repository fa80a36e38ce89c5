"""pytorch/examples word_language_model: a Dictionary / Corpus built from text lines with an <eos> token, batchify
into columns, get_batch with a bptt window, an RNNModel (LSTM and GRU with dropout, tied encoder/decoder weights and
init_weights with uniform_ / zeros_), repackage_hidden between windows, clip_grad_norm_, the manual SGD update
p.data.add_(p.grad, alpha=-lr), evaluation under torch.no_grad with perplexity math.exp, and lr annealing /4 when
the validation loss does not improve; then a Transformer variant with its square subsequent mask."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog met on the mat",
        "the log was near the mat", "a dog ran to the cat", "the cat ran to the log and sat"]


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus:
    def __init__(self, lines):
        self.dictionary = Dictionary()
        self.train = self.tokenize(lines[:4] * 2)
        self.valid = self.tokenize(lines[4:])

    def tokenize(self, lines):
        idss = []
        for line in lines:
            words = line.split() + ['<eos>']
            ids = [self.dictionary.add_word(word) for word in words]
            idss.append(torch.tensor(ids).type(torch.int64))
        return torch.cat(idss)


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.2):
        super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                                               num_encoder_layers=nlayers)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)
        nn.init.uniform_(self.input_emb.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

    def forward(self, src, has_mask=True):
        if has_mask:
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                self.src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


bptt = 5


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def main():
    out = []
    torch.manual_seed(1111)
    corpus = Corpus(TEXT)
    ntokens = len(corpus.dictionary)
    train_data = batchify(corpus.train, 4)
    val_data = batchify(corpus.valid, 2)
    out += [ntokens, str(train_data.shape), str(val_data.shape), repr(train_data[:2])]
    criterion = nn.NLLLoss()

    for rnn_type, tied in (("LSTM", True), ("GRU", False)):
        model = RNNModel(rnn_type, ntokens, 12, 12, 2, dropout=0.2, tie_weights=tied)
        out += [str(model), len(list(model.parameters()))]
        lr = 5.0

        def evaluate(data_source, bsz, model=model):
            model.eval()
            total_loss = 0.
            hidden = model.init_hidden(bsz)
            with torch.no_grad():
                for i in range(0, data_source.size(0) - 1, bptt):
                    data, targets = get_batch(data_source, i)
                    output, hidden = model(data, hidden)
                    hidden = repackage_hidden(hidden)
                    total_loss += len(data) * criterion(output, targets).item()
            return total_loss / (len(data_source) - 1)

        best_val_loss = None
        for _epoch in range(1, 4):
            model.train()
            hidden = model.init_hidden(4)
            for i in range(0, train_data.size(0) - 1, bptt):
                data, targets = get_batch(train_data, i)
                model.zero_grad()
                hidden = repackage_hidden(hidden)
                output, hidden = model(data, hidden)
                loss = criterion(output, targets)
                loss.backward()
                total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-lr)
                out += [loss.item(), total_norm.item()]
            val_loss = evaluate(val_data, 2)
            out += [val_loss, math.exp(val_loss), lr]
            if not best_val_loss or val_loss < best_val_loss:
                best_val_loss = val_loss
            else:
                lr /= 4.0
        out.append(model.decoder.weight is model.encoder.weight)

    torch.manual_seed(7)
    model = TransformerModel(ntokens, 8, 2, 16, 1, dropout=0.1)
    out.append(repr(nn.Transformer.generate_square_subsequent_mask(3)))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for i in range(0, train_data.size(0) - 1, bptt):
        data, targets = get_batch(train_data, i)
        output = model(data).view(-1, ntokens)
        loss = criterion(output, targets)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        probs = model(val_data[:4], has_mask=False).exp()
        out += [probs.sum().item(), probs.max().item()]
    return out
