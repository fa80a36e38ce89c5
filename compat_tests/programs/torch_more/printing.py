"""What tutorials print: tensors of several dtypes and sizes (summarized, scientific notation, requires_grad and
grad_fn names), Parameters, torch.Size, dtypes, devices, a model with extra_repr, an optimizer, a scheduler's last
learning rate and the state_dict keys; print options changed and restored."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Scale(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def extra_repr(self):
        return f"factor={self.factor}"

    def forward(self, x):
        return x * self.factor


def main():
    torch.manual_seed(0)
    x = torch.randn(3, 4, requires_grad=True)
    w = nn.Linear(4, 2)
    texts = [repr(x), str(x.detach()), repr(torch.arange(12).view(3, 4)), repr(torch.tensor([True, False])),
             repr(torch.tensor([1e-8, 1.0, 1e6])), repr(torch.tensor([0.5, 2.0], dtype=torch.float64)),
             repr(torch.zeros(2, dtype=torch.float16)), repr(torch.tensor(3.5)), repr(torch.empty(0, 3)),
             repr(torch.arange(2000.0)), repr(torch.randn(40, 40)), repr(torch.tensor([float("nan"), float("inf")])),
             repr(w.weight), repr(x.shape), repr(x.dtype), repr(x.device), str(torch.float32), str(x.size()),
             repr(torch.ones(2, 3).t()), repr(torch.tensor([[1, -2], [100, 4]], dtype=torch.int8)),
             repr(torch.tensor([1.0, 2.0]).long())]
    y = w(x)
    loss = F.cross_entropy(y, torch.tensor([0, 1, 1]))
    texts += [repr(y), repr(loss), repr(y.relu()), repr(y.sum()), repr(y.mean(0)), repr(y.t()), repr(y[0]),
              repr(y.view(-1)), repr(y * 2), repr(y.softmax(-1)), repr(torch.cat([y, y])), repr(y.exp()),
              repr(torch.matmul(x, x.t())), repr(x.pow(2)), repr(y.max(dim=1)), repr(loss.grad_fn.name()),
              repr(y.unsqueeze(0)), repr(F.mse_loss(y, torch.zeros(3, 2))), repr(y.tanh()), repr(y.sigmoid())]
    model = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Dropout(0.25),
                          nn.Flatten(), nn.LazyLinear(3) if False else nn.Linear(16, 3), Scale(0.5),
                          nn.LSTM(3, 4, batch_first=True), nn.Embedding(10, 3, padding_idx=0),
                          nn.TransformerEncoderLayer(8, 2, 16), nn.MaxPool2d(2), nn.AdaptiveAvgPool2d((1, 1)),
                          nn.LayerNorm(8), nn.GELU(approximate="tanh"), nn.LeakyReLU(0.1), nn.Softmax(dim=1),
                          nn.ConvTranspose2d(2, 2, 3), nn.Upsample(scale_factor=2), nn.Identity(),
                          nn.ModuleDict({"a": nn.Tanh()}), nn.GRU(2, 2, num_layers=2, dropout=0.1),
                          nn.CrossEntropyLoss(label_smoothing=0.1), nn.MultiheadAttention(8, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    adam = torch.optim.AdamW(model.parameters(), lr=1e-3)
    texts += [repr(model), repr(optimizer), repr(adam), ",".join(model.state_dict().keys())]
    torch.set_printoptions(precision=2, sci_mode=False)
    texts.append(repr(torch.tensor([1e-8, 1.0, 123456.789])))
    torch.set_printoptions(profile="default")
    texts.append(repr(torch.tensor([1e-8, 1.0, 123456.789])))
    return texts


if __name__ == "__main__":
    print(main())
