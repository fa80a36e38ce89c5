"""Complex tensors in a phasor / communications notebook: torch.complex and torch.polar to build signals,
abs / angle / real / imag / conj, view_as_real and view_as_complex round trips, complex matmul and exp, a QPSK
constellation with noise and nearest-symbol decoding, printing complex tensors, and fitting a complex gain by
gradient descent on real parameters."""

import math

import torch


def main():
    torch.manual_seed(0)
    out = []
    mag = torch.tensor([1.0, 2.0, 0.5])
    phase = torch.tensor([0.0, math.pi / 4, -math.pi / 2])
    z = torch.polar(mag, phase)
    out.append(str(z))
    out.append(str(z.dtype))
    out += z.abs().tolist() + z.angle().tolist()
    out += z.real.tolist() + z.imag.tolist()
    out.append(str(z.conj() * z))
    w = torch.complex(torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]))
    out.append(str(w))
    out.append(str(torch.view_as_real(w)))
    pairs = torch.randn(4, 2)
    c = torch.view_as_complex(pairs)
    out.append(torch.equal(torch.view_as_real(c), pairs))
    out.append(str(c.shape))

    rot = torch.exp(1j * torch.tensor(math.pi / 3))
    out += [rot.real.item(), rot.imag.item(), str(rot)]
    A = torch.randn(2, 2, dtype=torch.cfloat)
    v = torch.randn(2, dtype=torch.cfloat)
    out.append(str((A @ v).abs()))
    out.append((A.conj().T @ A).diagonal().imag.abs().max().item() < 1e-6)

    # QPSK: 2 bits per symbol, noisy channel, nearest-point decoding
    bits = torch.randint(0, 2, (64, 2))
    symbols = torch.complex(2 * bits[:, 0].float() - 1, 2 * bits[:, 1].float() - 1) / math.sqrt(2)
    channel = torch.polar(torch.tensor(0.8), torch.tensor(0.3))
    noise = torch.complex(torch.randn(64), torch.randn(64)) * 0.1
    received = symbols * channel + noise
    equalized = received / channel
    constellation = torch.tensor([-1 - 1j, -1 + 1j, 1 - 1j, 1 + 1j], dtype=torch.cfloat) / math.sqrt(2)
    dist = (equalized.unsqueeze(1) - constellation.unsqueeze(0)).abs()
    decoded = dist.argmin(1)
    sent = bits[:, 0] * 2 + bits[:, 1]
    out.append(int((decoded == sent).sum()))
    out.append(10 * torch.log10(symbols.abs().pow(2).mean() / noise.abs().pow(2).mean()).item())

    # fit the channel gain with real (re, im) parameters
    g = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([g], lr=0.5)
    for _ in range(8):
        est = torch.view_as_complex(g)
        loss = (received - symbols * est).abs().pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += [g[0].item(), g[1].item(), channel.real.item(), channel.imag.item()]
    return out
