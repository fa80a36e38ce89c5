"""A Fourier Neural Operator (neuraloperator-style FNO2d): lifting by nn.Linear on channels-last input plus a grid
channel, spectral convolutions with complex weights (nn.Parameter(scale * torch.rand(..., dtype=torch.cfloat))),
torch.fft.rfft2 / irfft2(s=...) with only the low modes multiplied by a complex einsum("bixy,ioxy->boxy") and written
into a zeroed complex tensor, a pointwise Conv2d (1x1) skip, GELU, the relative L2 loss (LpLoss) of the operator
learning code, Adam over real and complex parameters with a StepLR, and the complex gradients' shapes and norms."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SpectralConv2d(nn.Module):
    def __init__(self, cin, cout, modes1, modes2):
        super().__init__()
        self.cout, self.modes1, self.modes2 = cout, modes1, modes2
        scale = 1 / (cin * cout)
        self.weights1 = nn.Parameter(scale * torch.rand(cin, cout, modes1, modes2, dtype=torch.cfloat))
        self.weights2 = nn.Parameter(scale * torch.rand(cin, cout, modes1, modes2, dtype=torch.cfloat))

    @staticmethod
    def compl_mul2d(x, w):
        return torch.einsum("bixy,ioxy->boxy", x, w)

    def forward(self, x):
        b = x.shape[0]
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(b, self.cout, x.size(-2), x.size(-1) // 2 + 1, dtype=torch.cfloat)
        out_ft[:, :, :self.modes1, :self.modes2] = self.compl_mul2d(x_ft[:, :, :self.modes1, :self.modes2],
                                                                    self.weights1)
        out_ft[:, :, -self.modes1:, :self.modes2] = self.compl_mul2d(x_ft[:, :, -self.modes1:, :self.modes2],
                                                                     self.weights2)
        return torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))


class FNO2d(nn.Module):
    def __init__(self, modes=3, width=8):
        super().__init__()
        self.fc0 = nn.Linear(3, width)
        self.convs = nn.ModuleList(SpectralConv2d(width, width, modes, modes) for _ in range(2))
        self.ws = nn.ModuleList(nn.Conv2d(width, width, 1) for _ in range(2))
        self.fc1 = nn.Linear(width, 16)
        self.fc2 = nn.Linear(16, 1)

    @staticmethod
    def get_grid(shape):
        b, sx, sy = shape[0], shape[1], shape[2]
        gx = torch.linspace(0, 1, sx).reshape(1, sx, 1, 1).repeat([b, 1, sy, 1])
        gy = torch.linspace(0, 1, sy).reshape(1, 1, sy, 1).repeat([b, sx, 1, 1])
        return torch.cat((gx, gy), dim=-1)

    def forward(self, x):
        x = torch.cat((x, self.get_grid(x.shape)), dim=-1)
        x = self.fc0(x).permute(0, 3, 1, 2)
        for i, (conv, w) in enumerate(zip(self.convs, self.ws)):
            x = conv(x) + w(x)
            if i < len(self.convs) - 1:
                x = F.gelu(x)
        x = x.permute(0, 2, 3, 1)
        return self.fc2(F.gelu(self.fc1(x)))


def rel_l2(pred, target):
    b = pred.size(0)
    diff = torch.norm(pred.reshape(b, -1) - target.reshape(b, -1), 2, 1)
    return (diff / torch.norm(target.reshape(b, -1), 2, 1)).mean()


def main():
    torch.manual_seed(13)
    g = torch.Generator().manual_seed(13)
    s = 10
    a = torch.randn(6, s, s, 1, generator=g)
    a_hat = torch.fft.rfft2(a.squeeze(-1))
    k = torch.fft.fftfreq(s).abs().unsqueeze(1) + torch.fft.rfftfreq(s).unsqueeze(0)
    u = torch.fft.irfft2(a_hat / (1 + 10 * k), s=(s, s)).unsqueeze(-1)
    model = FNO2d()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
    out = [str(model.convs[0].weights1.dtype), sum(p.numel() for p in model.parameters())]
    for _ in range(10):
        loss = rel_l2(model(a), u)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out.append(loss.item())
    grad = model.convs[0].weights1.grad
    out += [str(grad.dtype), grad.abs().sum().item(), grad.real.sum().item(), grad.imag.sum().item(),
            model.convs[1].weights2.abs().sum().item(), sched.get_last_lr()[0]]
    return out
