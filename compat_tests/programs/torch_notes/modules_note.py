"""The "Modules" note: a module built from submodules (named_modules, named_children, register_module, apply with
an init function), ParameterList / ParameterDict, forward pre-hooks (with kwargs) and forward hooks that change
inputs and outputs, full backward hooks and backward pre-hooks, state_dict hooks, training/eval modes, to(dtype),
requires_grad_ and zero_grad."""

import torch
import torch.nn.functional as F
from torch import nn


class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, input):
        return (input @ self.weight) + self.bias


class DynamicNet(nn.Module):
    def __init__(self, num_layers):
        super().__init__()
        self.linears = nn.ModuleList([MyLinear(4, 4) for _ in range(num_layers)])
        self.activations = nn.ModuleDict({"relu": nn.ReLU(), "lrelu": nn.LeakyReLU()})
        self.final = MyLinear(4, 1)
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(1) * (i + 1)) for i in range(2)])
        self.extra = nn.ParameterDict({"shift": nn.Parameter(torch.zeros(1))})
        self.register_module("head", nn.Identity())

    def forward(self, x, act):
        for linear in self.linears:
            x = linear(x)
            x = self.activations[act](x)
        return self.head(self.final(x) * self.scales[1] + self.extra["shift"])


def main():
    out = []
    torch.manual_seed(4)
    net = DynamicNet(3)
    out.append(repr(net))
    out.append(repr([name for name, _ in net.named_modules()]))
    out.append(repr([name for name, _ in net.named_children()]))
    out.append(repr([(name, tuple(p.shape)) for name, p in net.named_parameters()]))
    result = net(torch.randn(2, 4), "relu")
    out += result.flatten().tolist()

    @torch.no_grad()
    def init_weights(m):
        if isinstance(m, MyLinear):
            m.weight.fill_(0.5)
            m.bias.zero_()

    visited = []
    net.apply(lambda m: visited.append(type(m).__name__))
    net.apply(init_weights)
    out += [repr(visited), net(torch.ones(1, 4), "lrelu").item()]

    model = nn.Linear(3, 2)
    calls = []

    def pre_hook(m, args, kwargs):
        calls.append(("pre", repr(sorted(kwargs))))
        return (args[0] * 2,), kwargs

    def fwd_hook(m, inputs, output):
        calls.append(("fwd", repr(tuple(inputs[0].shape))))
        return output + 1

    def backward_hook(m, grad_input, grad_output):
        calls.append(("bwd", repr([None if g is None else tuple(g.shape) for g in grad_input])))
        return (grad_input[0] * 10,)

    def backward_pre_hook(m, grad_output):
        calls.append(("bwd_pre", repr(tuple(grad_output[0].shape))))

    handles = [model.register_forward_pre_hook(pre_hook, with_kwargs=True), model.register_forward_hook(fwd_hook),
               model.register_full_backward_hook(backward_hook),
               model.register_full_backward_pre_hook(backward_pre_hook)]
    x = torch.ones(4, 3, requires_grad=True)
    y = model(x)
    y.sum().backward()
    out += [repr(calls), x.grad.sum().item(), model.weight.grad.sum().item(), y.sum().item()]
    for handle in handles:
        handle.remove()
    calls.clear()
    model(x)
    out.append(len(calls))

    def state_dict_hook(module, state_dict, prefix, local_metadata):
        state_dict[prefix + "note"] = torch.tensor(1.0)

    def load_pre_hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        state_dict.pop(prefix + "note", None)

    model.register_state_dict_post_hook(state_dict_hook)
    model.register_load_state_dict_pre_hook(load_pre_hook)
    state = model.state_dict()
    out += [repr(list(state)), repr(model.load_state_dict(state))]

    out += [net.training, net.linears[0].training]
    net.eval()
    out += [net.training, net.activations["relu"].training]
    net.train()
    double_net = net.to(torch.float64)
    out += [double_net is net, repr(net.final.weight.dtype), repr(net.scales[0].dtype)]
    net.requires_grad_(False)
    out.append(repr([p.requires_grad for p in net.parameters()]))
    net.requires_grad_()
    loss = net(torch.ones(2, 4, dtype=torch.float64), "relu").sum()
    loss.backward()
    out.append(net.linears[0].weight.grad.sum().item())
    net.zero_grad()
    out.append(repr(net.linears[0].weight.grad))
    out.append(repr(F.relu(torch.tensor([-1.0, 2.0]))))
    return out
