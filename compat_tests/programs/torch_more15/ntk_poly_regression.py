"""Two short pytorch.org / pytorch/examples scripts: the "regression" example (make_features with torch.cat of x**i,
a target from hidden W_target / b_target, poly_desc formatting of the weights, F.smooth_l1_loss, manual updates of
fc.weight.data with fc.zero_grad(), stopping when the loss falls below a threshold), and the "Neural Tangent
Kernels" tutorial (functional_call over detached params, vmap(jacrev(fnet_single), (None, 0)), the Jacobian
contraction with einsum over flattened parameter Jacobians and the NTK as vjp-of-jvp products)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, jacrev, jvp, vjp, vmap

POLY_DEGREE = 3
W_target = torch.randn(POLY_DEGREE, 1) * 5
b_target = torch.randn(1) * 5


def make_features(x):
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    result = 'y = '
    for i, w in enumerate(W):
        result += f'{w:+.2f} x^{i + 1} '
    result += f'{b[0]:+.2f}'
    return result


def get_batch(batch_size=16):
    random = torch.randn(batch_size)
    x = make_features(random)
    y = f(x)
    return x, y


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 4, (3, 3))
        self.conv2 = nn.Conv2d(4, 4, (3, 3))
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = self.conv1(x)
        x = x.relu()
        x = self.conv2(x)
        x = x.relu()
        x = x.mean(dim=(-2, -1))
        x = self.fc(x)
        return x


def main():
    out = []
    torch.manual_seed(11)
    global W_target, b_target
    W_target = torch.randn(POLY_DEGREE, 1) * 5
    b_target = torch.randn(1) * 5
    fc = torch.nn.Linear(W_target.size(0), 1)
    batch_idx = 0
    for batch_idx in range(1, 40):
        batch_x, batch_y = get_batch()
        fc.zero_grad()
        output = F.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()
        output.backward()
        for param in fc.parameters():
            param.data.add_(-0.05 * param.grad)
        if batch_idx % 4 == 0:
            out.append(loss)
        if loss < 1e-3:
            break
    out += [f'Loss: {loss:.6f} after {batch_idx} batches',
            '==> Learned function:\t' + poly_desc(fc.weight.view(-1), fc.bias),
            '==> Actual function:\t' + poly_desc(W_target.view(-1), b_target)]

    torch.manual_seed(0)
    net = CNN()
    x_train = torch.randn(5, 2, 8, 8)
    x_test = torch.randn(3, 2, 8, 8)
    params = {k: v.detach() for k, v in net.named_parameters()}

    def fnet_single(params, x):
        return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)

    def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute='full'):
        jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
        jac1 = jac1.values()
        jac1 = [j.flatten(2) for j in jac1]
        jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
        jac2 = jac2.values()
        jac2 = [j.flatten(2) for j in jac2]
        einsum_expr = None
        if compute == 'full':
            einsum_expr = 'Naf,Mbf->NMab'
        elif compute == 'trace':
            einsum_expr = 'Naf,Maf->NM'
        elif compute == 'diagonal':
            einsum_expr = 'Naf,Maf->NMa'
        result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
        result = result.sum(0)
        return result

    full = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, 'full')
    trace = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, 'trace')
    diag = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, 'diagonal')
    out += [str(full.shape), str(trace.shape), str(diag.shape)]
    out += full.flatten()[:12].tolist() + trace.flatten().tolist()
    out.append((torch.diagonal(full, dim1=-2, dim2=-1) - diag).abs().max().item())

    def empirical_ntk_ntk_vps(func, params, x1, x2, compute='full'):
        def get_ntk(x1, x2):
            def func_x1(params):
                return func(params, x1)

            def func_x2(params):
                return func(params, x2)

            output, vjp_fn = vjp(func_x1, params)

            def get_ntk_slice(vec):
                vjps = vjp_fn(vec)
                _, jvps = jvp(func_x2, (params,), vjps)
                return jvps

            basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
            return vmap(get_ntk_slice)(basis)

        result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)
        if compute == 'full':
            return result
        if compute == 'trace':
            return torch.einsum('NMKK->NM', result)
        if compute == 'diagonal':
            return torch.einsum('NMKK->NMK', result)

    full_vps = empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test, 'full')
    out.append(str(full_vps.shape))
    out.append((full_vps - full).abs().max().item() < 1e-4)
    out += empirical_ntk_ntk_vps(fnet_single, params, x_train[:2], x_test[:2], 'trace').flatten().tolist()
    return out
