"""pytorch/examples forward_forward (Hinton's Forward-Forward algorithm): the label overlaid on the first pixels
(x_.max() one-hot), layers normalised by x / (x.norm(2, 1, keepdim=True) + 1e-4), goodness h.pow(2).mean(1), the
softplus-shaped loss torch.log(1 + torch.exp(cat([-g_pos + threshold, g_neg - threshold]))).mean() trained layer by
layer with its own Adam, negatives from a randperm shuffle of the labels, prediction by the argmax of the summed
goodness over candidate labels, and the error rate 1.0 - acc."""

import torch
import torch.nn as nn
from torch.optim import Adam


def overlay_y_on_x(x, y, classes=4):
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=0.03)
        self.threshold = 2.0
        self.num_epochs = 12

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg, log):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            loss = torch.log(1 + torch.exp(torch.cat([
                -g_pos + self.threshold,
                g_neg - self.threshold]))).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % 4 == 0:
                log += [loss.item(), g_pos.mean().item(), g_neg.mean().item()]
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers += [Layer(dims[d], dims[d + 1])]

    def predict(self, x):
        goodness_per_label = []
        for label in range(4):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness += [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg, log):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            h_pos, h_neg = layer.train(h_pos, h_neg, log)
            log.append(f"training layer {i} done: {tuple(h_pos.shape)}")


def make_data(n, generator):
    centers = torch.randn(4, 20, generator=generator) * 2.0
    y = torch.randint(0, 4, (n,), generator=generator)
    x = centers[y] + 0.5 * torch.randn(n, 20, generator=generator)
    x = (x - x.mean()) / x.std()
    return x, y


def main():
    out = []
    torch.manual_seed(1234)
    gen = torch.Generator().manual_seed(5)
    x, y = make_data(64, gen)
    x_te, y_te = make_data(32, gen)
    net = Net([20, 32, 32])
    out.append(len(list(net.parameters())))  # plain list: the layers are not registered submodules
    x_pos = overlay_y_on_x(x, y)
    rnd = torch.randperm(x.size(0))
    x_neg = overlay_y_on_x(x, y[rnd])
    out += [x_pos[:2, :6].tolist()[0][0], x_neg[:, :4].sum().item(), (y[rnd] == y).sum().item()]
    net.train(x_pos, x_neg, out)
    out.append(1.0 - net.predict(x).eq(y).float().mean().item())
    out.append(1.0 - net.predict(x_te).eq(y_te).float().mean().item())
    out.append(str(net.layers[0]))
    out.append(net.layers[1].weight.abs().sum().item())
    return out
