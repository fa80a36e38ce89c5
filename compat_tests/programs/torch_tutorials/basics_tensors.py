""""Learn the Basics: Tensors" (pytorch.org tutorial): creating tensors from data, numpy and other tensors,
attributes, indexing and slicing, joining, arithmetic, single-element tensors, in-place operations and the numpy
bridge, with the tutorial's prints captured as strings."""

import numpy as np
import torch


def main():
    out = []
    data = [[1, 2], [3, 4]]
    x_data = torch.tensor(data)
    np_array = np.array(data)
    x_np = torch.from_numpy(np_array)
    out += [repr(x_data), repr(x_np), str(x_np.dtype)]

    torch.manual_seed(0)
    x_ones = torch.ones_like(x_data)
    out.append(f"Ones Tensor: \n {x_ones} \n")
    x_rand = torch.rand_like(x_data, dtype=torch.float)
    out.append(f"Random Tensor: \n {x_rand} \n")

    shape = (2, 3,)
    rand_tensor = torch.rand(shape)
    ones_tensor = torch.ones(shape)
    zeros_tensor = torch.zeros(shape)
    out += [f"Random Tensor: \n {rand_tensor} \n", f"Ones Tensor: \n {ones_tensor} \n",
            f"Zeros Tensor: \n {zeros_tensor}"]

    tensor = torch.rand(3, 4)
    out += [f"Shape of tensor: {tensor.shape}", f"Datatype of tensor: {tensor.dtype}",
            f"Device tensor is stored on: {tensor.device}"]
    if torch.accelerator.is_available():
        tensor = tensor.to(torch.accelerator.current_accelerator())

    tensor = torch.ones(4, 4)
    out += [f"First row: {tensor[0]}", f"First column: {tensor[:, 0]}", f"Last column: {tensor[..., -1]}"]
    tensor[:, 1] = 0
    out.append(str(tensor))

    t1 = torch.cat([tensor, tensor, tensor], dim=1)
    out += [str(t1), str(t1.shape), str(torch.stack([tensor, tensor]).shape)]

    y1 = tensor @ tensor.T
    y2 = tensor.matmul(tensor.T)
    y3 = torch.rand_like(y1)
    torch.matmul(tensor, tensor.T, out=y3)
    z1 = tensor * tensor
    z2 = tensor.mul(tensor)
    z3 = torch.rand_like(tensor)
    torch.mul(tensor, tensor, out=z3)
    out += [str(y1), str(y2), str(y3), str(z1), str(z2), str(z3)]

    agg = tensor.sum()
    agg_item = agg.item()
    out += [agg_item, str(type(agg_item))]

    out.append(f"{tensor} \n")
    tensor.add_(5)
    out.append(str(tensor))

    t = torch.ones(5)
    out.append(f"t: {t}")
    n = t.numpy()
    out.append(f"n: {n}")
    t.add_(1)
    out += [f"t: {t}", f"n: {n}"]

    n = np.ones(5)
    t = torch.from_numpy(n)
    np.add(n, 1, out=n)
    out += [f"t: {t}", f"n: {n}"]

    # Slicing variants the tutorial's readers use next.
    r = torch.arange(24.).reshape(2, 3, 4)
    out += [repr(r[1, :, ::2]), repr(r[..., 1:3].sum(-1)), repr(r.transpose(0, 2).shape),
            repr(r[r > 20]), repr(r.view(-1, 8)[1]), repr(torch.zeros(2, 2, dtype=torch.int64) + 3),
            repr(r.mean(dim=(0, 1))), repr(r.max(dim=2)), repr(torch.tensor(3.5)), repr(torch.tensor([True, False]))]
    return out
