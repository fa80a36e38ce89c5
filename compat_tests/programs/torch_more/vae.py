"""A variational autoencoder: encoder to (mu, logvar), the reparameterization trick with randn_like, BCE with
logits reconstruction + the KL term, Adam, and sampling from the prior in eval mode."""

import torch
from torch import nn
from torch.nn import functional as F


class VAE(nn.Module):
    def __init__(self, d=36, h=24, z=4):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.fc21 = nn.Linear(h, z)
        self.fc22 = nn.Linear(h, z)
        self.fc3 = nn.Linear(z, h)
        self.fc4 = nn.Linear(h, d)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        return self.fc4(F.relu(self.fc3(z)))  # logits

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 36))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(logits, x, mu, logvar):
    bce = F.binary_cross_entropy_with_logits(logits, x.view(-1, 36), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld, bce, kld


def main():
    torch.manual_seed(1)
    base = (torch.rand(4, 1, 6, 6) > 0.5).float()
    data = base[torch.randint(0, 4, (64,))]
    flip = torch.rand(data.shape) < 0.05
    data = torch.where(flip, 1 - data, data)
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    out = []
    for _epoch in range(3):
        model.train()
        for batch in data.split(16):
            optimizer.zero_grad()
            logits, mu, logvar = model(batch)
            loss, bce, kld = loss_function(logits, batch, mu, logvar)
            loss.backward()
            optimizer.step()
            out += [loss.item() / len(batch), kld.item()]
    model.eval()
    with torch.no_grad():
        sample = torch.sigmoid(model.decode(torch.randn(8, 4))).view(8, 1, 6, 6)
        out.append(sample.mean().item())
        logits, mu, logvar = model(data)
        out.append(F.binary_cross_entropy(torch.sigmoid(logits), data.view(-1, 36)).item())
        out.append(mu.std(dim=0).sum().item())
    return out


if __name__ == "__main__":
    print(main())
