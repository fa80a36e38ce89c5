"""Time-series anomaly detection with an LSTM autoencoder (the Keras-to-PyTorch blog classic): sliding windows by
Tensor.unfold, standardisation with statistics from the training split, an encoder LSTM whose last hidden state is
repeated over time (repeat / expand) into a decoder LSTM with a TimeDistributed-style Linear, L1 reconstruction
loss, thresholds from torch.quantile of the training errors (linear and "higher" interpolation) and kthvalue,
and precision / recall of the flagged windows against injected anomalies."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, n_features, embedding_dim):
        super().__init__()
        self.rnn1 = nn.LSTM(n_features, 2 * embedding_dim, batch_first=True)
        self.rnn2 = nn.LSTM(2 * embedding_dim, embedding_dim, batch_first=True)

    def forward(self, x):
        x, _ = self.rnn1(x)
        _, (hidden_n, _) = self.rnn2(x)
        return hidden_n.squeeze(0)


class Decoder(nn.Module):
    def __init__(self, seq_len, embedding_dim, n_features):
        super().__init__()
        self.seq_len = seq_len
        self.rnn1 = nn.LSTM(embedding_dim, embedding_dim, batch_first=True)
        self.rnn2 = nn.LSTM(embedding_dim, 2 * embedding_dim, batch_first=True)
        self.output_layer = nn.Linear(2 * embedding_dim, n_features)

    def forward(self, z):
        x = z.unsqueeze(1).repeat(1, self.seq_len, 1)
        x, (h, c) = self.rnn1(x)
        x, _ = self.rnn2(x, (h.repeat(1, 1, 2), c.expand(1, -1, -1).repeat(1, 1, 2)))
        return self.output_layer(x)


class RecurrentAutoencoder(nn.Module):
    def __init__(self, seq_len, n_features, embedding_dim=8):
        super().__init__()
        self.encoder = Encoder(n_features, embedding_dim)
        self.decoder = Decoder(seq_len, embedding_dim, n_features)

    def forward(self, x):
        return self.decoder(self.encoder(x))


def main():
    torch.manual_seed(5)
    g = torch.Generator().manual_seed(5)
    t = torch.arange(240, dtype=torch.float32)
    series = torch.stack([torch.sin(t * 0.2), torch.cos(t * 0.13)], 1) + 0.05 * torch.randn(240, 2, generator=g)
    anomalies = torch.zeros(240, dtype=torch.bool)
    anomalies[[200, 201, 202, 220]] = True
    series[anomalies] += torch.tensor([1.5, -1.2])
    train, test = series[:160], series[140:]
    mean, std = train.mean(0, keepdim=True), train.std(0, keepdim=True)
    seq_len = 10
    windows = ((train - mean) / std).unfold(0, seq_len, 5).transpose(1, 2).contiguous()
    test_windows = ((test - mean) / std).unfold(0, seq_len, 5).transpose(1, 2)
    labels = anomalies[140:].unfold(0, seq_len, 5).any(dim=1)
    model = RecurrentAutoencoder(seq_len, 2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    out = [float(windows.shape[0]), float(test_windows.shape[0])]
    for _ in range(8):
        model.train()
        opt.zero_grad()
        loss = F.l1_loss(model(windows), windows, reduction="sum")
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        train_err = (model(windows) - windows).abs().mean(dim=(1, 2))
        test_err = (model(test_windows) - test_windows).abs().mean(dim=(1, 2))
    threshold = torch.quantile(train_err, 0.95)
    higher = torch.quantile(train_err, torch.tensor([0.5, 0.9]), interpolation="higher")
    kth = train_err.kthvalue(3)
    flagged = test_err > threshold
    tp = (flagged & labels).sum().item()
    out += [threshold.item(), *higher.tolist(), kth.values.item(), float(kth.indices.item()), float(tp),
            float(flagged.sum().item()), float(labels.sum().item())]
    out += test_err.tolist()
    return out
