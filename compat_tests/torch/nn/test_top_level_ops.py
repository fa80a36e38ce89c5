"""Neural-network operations at torch's top level (torch.conv2d, torch.dropout, torch.batch_norm...) against torch."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad

X4 = arrays((2, 3, 6, 6), seed=1)
W4 = arrays((4, 3, 3, 3), seed=2)
X3 = arrays((2, 3, 8), seed=3)


@pytest.mark.parametrize("fn", [
    lambda torch, x, w: torch.conv2d(x, w, None, 1, 1),
    lambda torch, x, w: torch.conv2d(x, w, stride=2, padding="valid", dilation=1, groups=1),
    lambda torch, x, w: torch.conv_transpose2d(x, w.transpose(0, 1)[:, :3].contiguous(), None, 2, 1),
    lambda torch, x, w: torch.max_pool2d(x, 2),
    lambda torch, x, w: torch.max_pool2d(x, (3, 2), (2, 1), 1, 1, True),
    lambda torch, x, w: torch.pixel_shuffle(x[:, :1].repeat(1, 4, 1, 1), 2),
    lambda torch, x, w: torch.pixel_unshuffle(x, 2),
    lambda torch, x, w: torch.channel_shuffle(x.repeat(1, 2, 1, 1), 2),
    lambda torch, x, w: torch.layer_norm(x, [6, 6]),
    lambda torch, x, w: torch.group_norm(x, 3, None, None, 1e-3),
    lambda torch, x, w: torch.rms_norm(x, [6]),
    lambda torch, x, w: torch.celu(x, 0.5),
    lambda torch, x, w: torch.selu(x),
    lambda torch, x, w: torch.threshold(x, 0.1, 20.0),
    lambda torch, x, w: torch.hardshrink(x, 0.3),
    lambda torch, x, w: torch.prelu(x, torch.full((3,), 0.2)),
    lambda torch, x, w: torch.rrelu(x, 0.1, 0.3, False),
])
def test_image_ops(fn):
    check_grad(fn, X4, W4)


@pytest.mark.parametrize("fn", [
    lambda torch, x: torch.conv1d(x, torch.ones(2, 3, 3), torch.zeros(2), 1, 2),
    lambda torch, x: torch.avg_pool1d(x, 3, 2, 1, True, False),
    lambda torch, x: torch.max_pool1d(x, 2),
    lambda torch, x: torch.max_pool1d_with_indices(x, 3, 2),
    lambda torch, x: torch.adaptive_avg_pool1d(x, 3),
    lambda torch, x: torch.adaptive_max_pool1d(x, 3),
    lambda torch, x: torch.pdist(x[0]),
    lambda torch, x: torch.conv_tbc(x.permute(2, 0, 1).contiguous(), torch.ones(3, 3, 2), torch.zeros(2), 1),
])
def test_sequence_ops(fn):
    check_grad(fn, X3)


@pytest.mark.parametrize("name", ["batch_norm", "instance_norm"])
@pytest.mark.parametrize("training", [True, False])
def test_norms_with_native_argument_order(name, training):
    x, w, b = arrays((4, 3, 5), (3,), (3,), seed=4)
    mean, var = np.zeros(3, np.float32), np.ones(3, np.float32)
    check(lambda torch, x, w, b, m, v: (getattr(torch, name)(x, w, b, m, v, training, 0.3, 1e-5, False), m, v),
          x, w, b, mean, var)


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"])
@pytest.mark.parametrize("train", [False, True])
def test_dropouts_with_native_arguments(name, train):
    check(lambda torch, x: (torch.manual_seed(0), getattr(torch, name)(x, 0.4, train))[1], arrays((4, 3, 5, 5), seed=5))


def test_embedding_native_order():
    w = arrays((6, 3), seed=6)
    check_grad(lambda torch, w: torch.embedding(w, torch.tensor([[0, 5], [2, 2]])), w)
    check_grad(lambda torch, w: torch.embedding(w, torch.tensor([1, 0, 1]), 1), w)


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_losses_with_reduction_codes(reduction):
    a, b, c = arrays((4, 3), (4, 3), (4, 3), seed=7)
    t = np.sign(arrays((4,), seed=8)).astype(np.float32)
    check_grad(lambda torch, a, b: torch.kl_div(a.log_softmax(1), b.softmax(1), reduction), a, b)
    check_grad(lambda torch, a, b: torch.binary_cross_entropy_with_logits(a, b.sigmoid(), None, None, reduction),
               a, b)
    check_grad(lambda torch, a, b, t: torch.cosine_embedding_loss(a, b, t, 0.1, reduction), a, b, t)
    check_grad(lambda torch, a, t: torch.hinge_embedding_loss(a[:, 0], t, 0.5, reduction), a, t)
    check_grad(lambda torch, a, b, t: torch.margin_ranking_loss(a[:, 0], b[:, 0], t, 0.2, reduction), a, b, t)
    check_grad(lambda torch, a, b: torch.poisson_nll_loss(a, b.abs(), True, False, 1e-8, reduction), a, b)
    check_grad(lambda torch, a, b, c: torch.triplet_margin_loss(a, b, c, 1.0, 2.0, 1e-6, False, reduction), a, b, c)


def test_ctc_loss_native():
    logits = arrays((6, 2, 4), seed=9)
    check_grad(lambda torch, x: torch.ctc_loss(x.log_softmax(2), torch.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2], 0,
                                                1, False), logits)


@pytest.mark.parametrize("expr", ["F.conv2d(x, torch.ones(2, 3, 3, 3))", "F.max_pool2d(x, 2)", "F.avg_pool2d(x, 2)",
                                  "F.batch_norm(x, None, None, training=True)", "F.layer_norm(x, (6,))",
                                  "F.cross_entropy(x[:, :, 0, 0], torch.tensor([0, 1]))",
                                  "F.nll_loss(x[:, :, 0, 0], torch.tensor([0, 2]))"])
def test_grad_fn_names_of_layers(expr):
    def fn(torch, x):
        r = eval(expr, {"torch": torch, "F": torch.nn.functional, "x": x.requires_grad_()})
        return type(r.grad_fn).__name__, r.grad_fn.name()
    check(fn, X4)
