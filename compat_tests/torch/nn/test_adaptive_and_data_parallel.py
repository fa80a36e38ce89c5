"""AdaptiveLogSoftmaxWithLoss and (GPU-less) DataParallel against real torch 2.13."""

import pytest

from compat_tests.torch.harness import arrays, check, check_grad


def _model(torch, div_value=2.0, head_bias=False, cutoffs=(3, 6), n_classes=10):
    torch.manual_seed(0)
    return torch.nn.AdaptiveLogSoftmaxWithLoss(8, n_classes, list(cutoffs), div_value=div_value,
                                               head_bias=head_bias)


TARGETS = [0, 4, 9, 2, 7]


@pytest.mark.parametrize("kwargs", [{}, {"head_bias": True, "div_value": 4.0}, {"cutoffs": (5,), "n_classes": 7},
                                    {"cutoffs": (2, 4, 6)}])
def test_forward_loss_log_prob_predict(kwargs):
    def run(torch, x):
        model = _model(torch, **kwargs)
        target = torch.tensor(TARGETS) % model.n_classes
        out = model(x, target)
        return (repr(model), type(out).__name__, out._fields, out.output, out.loss, model.log_prob(x),
                model.predict(x), model(x[0], target[0]), model.predict(x * 0))

    check(run, arrays((5, 8), seed=1))


def test_gradients():
    def run(torch, x):
        model = _model(torch, head_bias=True)
        out = model(x, torch.tensor(TARGETS))
        out.loss.backward()
        return out.loss, model.head.weight.grad, model.tail[1][0].weight.grad, model.head.bias.grad

    check(run, arrays((5, 8), seed=2), rtol=1e-5, atol=1e-6)
    check_grad(lambda torch, x: _model(torch)(x, torch.tensor(TARGETS)).output, arrays((5, 8), seed=3))


@pytest.mark.parametrize("call", [
    lambda t, m, x: m(x, t.tensor([0, 1])),
    lambda t, m, x: m(x, t.tensor([0, 1, 2, 3, 10])),
    lambda t, m, x: m(x, -t.tensor(TARGETS)),
    lambda t, m, x: m(x[None], t.tensor(TARGETS)),
    lambda t, m, x: m(x, t.tensor(TARGETS)[None]),
    lambda t, m, x: m(x[0], t.tensor(TARGETS)),
    lambda t, m, x: m.log_prob(x[0]),
    lambda t, m, x: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]),
    lambda t, m, x: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]),
    lambda t, m, x: t.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 3]),
])
def test_errors(call):
    check(lambda torch, x: call(torch, _model(torch), x), arrays((5, 8), seed=4))


def test_data_parallel_without_gpus_wraps_the_module():
    def run(torch, x):
        torch.manual_seed(0)
        model = torch.nn.DataParallel(torch.nn.Linear(3, 2), dim=0)
        out = model(x)
        out.sum().backward()
        return repr(model), list(model.state_dict()), model.device_ids, out, model.module.weight.grad, \
            isinstance(model.module, torch.nn.Linear)

    check(run, arrays((4, 3), seed=5))


def test_reset_parameters_draws_in_torchs_order():
    def run(torch):
        model = _model(torch, head_bias=True)
        model.reset_parameters()
        return [p.detach() for p in model.parameters()]

    check(run)
