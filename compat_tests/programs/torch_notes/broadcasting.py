"""The "Broadcasting semantics" note: which shapes broadcast and to what, in-place ops that may not change the shape
of their target (the error text), and the backward-compatibility example where two tensors of equal element count
but different shapes broadcast instead of adding pointwise."""

import torch


def attempt(fn):
    try:
        result = fn()
        return repr(tuple(result.shape))
    except RuntimeError as err:
        return f"RuntimeError: {err}"


def main():
    out = []
    x = torch.empty(5, 7, 3)
    y = torch.empty(5, 7, 3)
    out.append(repr((x + y).size()))
    x = torch.empty((0,))
    y = torch.empty(2, 2)
    out.append(attempt(lambda: x + y))
    x = torch.empty(5, 3, 4, 1)
    y = torch.empty(3, 1, 1)
    out.append(repr((x + y).size()))
    x = torch.empty(5, 2, 4, 1)
    y = torch.empty(3, 1, 1)
    out.append(attempt(lambda: x + y))
    x = torch.empty(1)
    y = torch.empty(3, 1, 7)
    out.append(repr((x + y).size()))
    x = torch.empty(5, 1, 4, 1)
    y = torch.empty(3, 1, 1)
    out.append(repr((x + y).size()))
    # In-place: the target keeps its shape, so only the other operand may broadcast.
    x = torch.empty(5, 3, 4, 1)
    y = torch.empty(3, 1, 1)
    out.append(repr(x.add_(y).size()))
    x = torch.empty(1, 3, 1)
    y = torch.empty(3, 1, 7)
    out.append(attempt(lambda: x.add_(y)))
    out.append(attempt(lambda: x.mul_(torch.ones(2, 3, 1))))
    # Backward compatibility: 4 elements each, shapes (4,) and (4, 1) broadcast to (4, 4).
    a = torch.ones(4, 1)
    b = torch.arange(4.0)
    summed = torch.add(a, b)
    out += [repr(summed.shape), repr(summed)]
    out += summed.sum(0).tolist()
    # Broadcasting values, gradients reduced back to each input's shape.
    p = torch.arange(3.0).reshape(3, 1).requires_grad_()
    q = torch.arange(4.0).requires_grad_()
    (p * q + q).pow(2).sum().backward()
    out += p.grad.flatten().tolist() + q.grad.tolist() + [repr(p.grad.shape), repr(q.grad.shape)]
    out.append(repr(torch.broadcast_shapes((2, 1), (1, 3), (3,))))
    out.append(repr([t.shape for t in torch.broadcast_tensors(torch.ones(2, 1), torch.zeros(3))]))
    out.append(repr(torch.ones(2, 1).expand(2, 3).stride()))
    try:
        torch.broadcast_shapes((2, 3), (4,))
    except RuntimeError as err:
        out.append(str(err))
    return out
