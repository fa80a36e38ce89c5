"""The "Autograd mechanics" note beyond the basics: the error text of backward after a saved tensor was
modified in place, ``retain_graph`` (a second backward through a freed graph), grad modes as context managers and
decorators (``no_grad`` vs ``inference_mode`` vs ``set_grad_enabled``), and complex autograd
(the gradient of a real loss of complex inputs is the conjugate Wirtinger derivative)."""

import torch


def first_line(fn):
    try:
        fn()
        return "no error"
    except RuntimeError as err:
        return "RuntimeError: " + str(err).split("\n")[0]


def main():
    out = []
    torch.manual_seed(3)
    x = torch.randn(5, requires_grad=True)

    # Modifying a tensor saved for backward: version counters catch it.
    a = torch.randn(3, requires_grad=True)
    b = a.sigmoid()
    out.append(b._version)
    b.mul_(2)
    out.append(b._version)
    msg = first_line(lambda: b.sum().backward())
    out.append(msg.split(": ")[1])  # the rest names the tensor in each library's words

    # retain_graph
    c = torch.randn(4, requires_grad=True)
    d = (c.exp() * c).sum()
    d.backward(retain_graph=True)
    first = c.grad.clone()
    d.backward()
    out.append((c.grad - 2 * first).abs().max().item())
    out.append(first_line(lambda: d.backward()).startswith("RuntimeError: Trying to backward through the graph a "
                                                            "second time"))

    # Grad modes.
    with torch.no_grad():
        n = x * 2
    out += [n.requires_grad, torch.is_grad_enabled()]
    with torch.inference_mode():
        inf = x * 2
        out += [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]
    out += [inf.requires_grad, x.is_inference(), torch.is_inference_mode_enabled()]
    with torch.inference_mode(mode=False):
        out.append(torch.is_inference_mode_enabled())

    @torch.no_grad()
    def doubler(t):
        return t * 2

    @torch.inference_mode()
    def tripler(t):
        return t * 3

    out += [doubler(x).requires_grad, tripler(x).requires_grad]
    torch.set_grad_enabled(False)
    out.append((x * 2).requires_grad)
    torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        with torch.enable_grad():
            out.append((x * 2).requires_grad)

    # Complex autograd: real loss of a complex tensor.
    z = torch.tensor([1.0 + 2.0j, -0.5 + 0.25j], requires_grad=True)
    loss = (z * z.conj()).real.sum()
    loss.backward()
    out += [repr(z.grad), str(z.grad.dtype)]
    w = torch.tensor([0.5 - 1.0j, 2.0 + 0.0j], requires_grad=True)
    (w.abs() ** 2).sum().backward()
    out.append(repr(w.grad))
    p = torch.tensor([1.0 + 1.0j], requires_grad=True)
    q = (p * (2.0 - 3.0j)).abs().sum()
    q.backward()
    out += [p.grad.real.item(), p.grad.imag.item()]
    return out
