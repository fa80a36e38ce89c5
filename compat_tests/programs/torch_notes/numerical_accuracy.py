"""The "Numerical accuracy" note: float32 sums that depend on the order of operations, float32 vs float64
results, extremal values and the finfo/iinfo tables, TF32 and reduced-precision reduction flags (no effect on a
CPU), and the note's examples of overflow and of losing small values next to large ones."""

import torch


def main():
    out = []
    a = torch.tensor([1e8, 1.0, -1e8], dtype=torch.float32)
    out += [a.sum().item(), a.double().sum().item(), (a[0] + a[2] + a[1]).item()]
    x = torch.full((10_000,), 0.1, dtype=torch.float32)
    out += [x.double().sum().item(), repr(torch.tensor(0.1, dtype=torch.float64).to(torch.float32).item())]
    big = torch.tensor([1e20], dtype=torch.float32)
    out += [repr(big * big), repr((big.double() * big.double()).float()), repr(torch.tensor([1e-45]))]
    out += [repr(torch.tensor([65504.0]).half() * 2), repr(torch.tensor([1.0, 2.0**-24]).half())]
    v = torch.tensor([1.0e-7, 1.0, 1.0e-7], dtype=torch.float32)
    out += [(v[0] + v[1] + v[2]).item(), (v[0] + v[2] + v[1]).item()]
    # Reductions on tensors with extremal values.
    ext = torch.tensor([float("inf"), -float("inf"), 1.0])
    out += [repr(ext.sum()), repr(torch.tensor([float("nan"), 1.0]).max()), repr(torch.tensor([3e38, 3e38]).sum())]
    out += [repr(torch.tensor([3e38, 3e38]).mean()), repr(torch.tensor([3e38, 3e38]).double().mean())]
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        out.append(repr(torch.finfo(dtype)))
        info = torch.finfo(dtype)
        out += [info.bits, info.eps, info.max, info.min, info.tiny, info.smallest_normal, info.resolution, info.dtype]
    for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
        out.append(repr(torch.iinfo(dtype)))
    out += [repr(torch.finfo()), repr(torch.iinfo(torch.int64).max), torch.iinfo(torch.uint8).bits]
    # TF32 / reduced precision: flags only change GPU kernels.
    out += [torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32,
            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
            torch.get_float32_matmul_precision()]
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.set_float32_matmul_precision("medium")
    torch.manual_seed(0)
    m = torch.randn(16, 16)
    out += [(m @ m).sum().item(), torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision()]
    torch.set_float32_matmul_precision("highest")
    torch.backends.cuda.matmul.allow_tf32 = False
    out += [torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision()]
    # Batched vs single computation: same numbers on this CPU for small matrices.
    A = torch.randn(3, 8, 8, dtype=torch.float64)
    out.append((torch.stack([A[i] @ A[i] for i in range(3)]) - A @ A).abs().max().item())
    out += [torch.tensor(1.0).nextafter(torch.tensor(2.0)).item(), torch.tensor([0.1]).float().double().item()]
    out += [repr(torch.tensor(16777217.0)), repr(torch.tensor(16777217, dtype=torch.int64).float())]
    return out
