"""A Neural Turing Machine on the copy task (the pytorch-ntm style): an nn.LSTMCell controller, heads emitting
key / beta / gate / shift / gamma (and erase / add for the write head) split by torch.split of one linear output,
content addressing with F.cosine_similarity over a broadcast memory plus 1e-16, beta through F.softplus,
interpolation with the previous weighting, a circular 3-tap shift by F.conv1d over a circularly padded weighting
(F.pad(mode="circular")), sharpening by pow(gamma) renormalised, reads by torch.bmm, writes with the erase/add
outer products (torch.ger of each sample via einsum), an initial memory and read vector kept as buffers, binary
targets trained with BCEWithLogitsLoss, RMSprop(momentum=0.9, alpha=0.95) with clip_grad_value_, and the cost per
sequence in bits."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Head(nn.Module):
    def __init__(self, ctrl, m_width, write):
        super().__init__()
        self.write = write
        self.sizes = [m_width, 1, 1, 3, 1] + ([m_width, m_width] if write else [])
        self.fc = nn.Linear(ctrl, sum(self.sizes))
        nn.init.xavier_uniform_(self.fc.weight, gain=1.4)
        nn.init.normal_(self.fc.bias, std=0.01)

    def address(self, memory, prev_w, k, beta, g, s, gamma):
        sim = F.cosine_similarity(memory + 1e-16, k.unsqueeze(1) + 1e-16, dim=-1)
        wc = F.softmax(F.softplus(beta) * sim, dim=1)
        wg = torch.sigmoid(g) * wc + (1 - torch.sigmoid(g)) * prev_w
        s = F.softmax(s, dim=1)
        padded = F.pad(wg.unsqueeze(1), (1, 1), mode="circular")
        # conv1d correlates; flipping the shift kernel makes it a convolution, one group per sample.
        shifted = F.conv1d(padded.transpose(0, 1), s.flip(1).unsqueeze(1), groups=wg.shape[0]).squeeze(0)
        w = shifted ** (1 + F.softplus(gamma))
        return w / (w.sum(1, keepdim=True) + 1e-16)

    def forward(self, h, memory, prev_w):
        parts = torch.split(self.fc(h), self.sizes, dim=1)
        w = self.address(memory, prev_w, *parts[:5])
        if not self.write:
            return torch.bmm(w.unsqueeze(1), memory).squeeze(1), w, memory
        erase, add = torch.sigmoid(parts[5]), parts[6]
        memory = memory * (1 - torch.einsum("bn,bm->bnm", w, erase)) + torch.einsum("bn,bm->bnm", w, add)
        return None, w, memory


class NTM(nn.Module):
    def __init__(self, n_bits=4, ctrl=32, n_slots=10, m_width=6):
        super().__init__()
        self.controller = nn.LSTMCell(n_bits + 1 + m_width, ctrl)
        self.read_head = Head(ctrl, m_width, write=False)
        self.write_head = Head(ctrl, m_width, write=True)
        self.fc_out = nn.Linear(ctrl + m_width, n_bits)
        self.register_buffer("mem_bias", torch.full((n_slots, m_width), 1e-6))
        self.register_buffer("read_init", torch.randn(1, m_width) * 0.01)
        self.n_slots = n_slots

    def forward(self, seq):
        t_len, b, _ = seq.shape
        memory = self.mem_bias.clone().repeat(b, 1, 1)
        h = c = torch.zeros(b, self.controller.hidden_size)
        read = self.read_init.expand(b, -1)
        w_read = w_write = F.one_hot(torch.zeros(b, dtype=torch.long), self.n_slots).float()
        outputs = []
        for t in range(t_len):
            h, c = self.controller(torch.cat([seq[t], read], 1), (h, c))
            _, w_write, memory = self.write_head(h, memory, w_write)
            read, w_read, _ = self.read_head(h, memory, w_read)
            outputs.append(self.fc_out(torch.cat([h, read], 1)))
        return torch.stack(outputs), w_read


def copy_batch(g, b, seq_len, n_bits):
    bits = torch.bernoulli(torch.full((seq_len, b, n_bits), 0.5), generator=g)
    inp = torch.zeros(2 * seq_len + 1, b, n_bits + 1)
    inp[:seq_len, :, :n_bits] = bits
    inp[seq_len, :, n_bits] = 1.0  # delimiter
    return inp, bits


def main():
    torch.manual_seed(9)
    g = torch.Generator().manual_seed(9)
    model = NTM()
    crit = nn.BCEWithLogitsLoss()
    opt = torch.optim.RMSprop(model.parameters(), lr=1e-3, momentum=0.9, alpha=0.95)
    out = []
    for _ in range(6):
        inp, bits = copy_batch(g, 4, 3, 4)
        logits, w_read = model(inp)
        pred = logits[-3:]
        loss = crit(pred, bits)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 10)
        opt.step()
        cost = (torch.sigmoid(pred.detach()).round() - bits).abs().sum() / 4
        out += [loss.item(), cost.item()]
    out += [w_read.sum(1).mean().item(), w_read.max().item(), model.read_head.fc.weight.grad.norm().item()]
    return out
