"""Losses: torch.nn.functional vs tf.nn and Keras losses on the same predictions and targets.

Argument orders differ (torch: ``loss(input, target)``; Keras: ``loss(y_true, y_pred)``) and so do
class axes (torch: dim 1; Keras: last) and some reductions, documented and asserted below: torch's
``weight=`` divides a class-weighted mean by the sum of the weights, Keras' ``sample_weight``
divides by the batch size.
"""

import numpy as np

from compat_tests.cross.harness import check, labels, normal, uniform


def test_cross_entropy_with_class_indices():
    y = labels((6,), 4)
    check(lambda torch, logits: torch.nn.functional.cross_entropy(logits, torch.tensor(y)),
          lambda tf, logits: (tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(y, logits)),
          dict(logits=normal((6, 4), scale=2.0)))
    check(lambda torch, logits: torch.nn.functional.cross_entropy(logits, torch.tensor(y), reduction="none"),
          lambda tf, logits: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits),
          dict(logits=normal((6, 4), scale=2.0)))


def test_cross_entropy_over_sequences():
    # torch puts the classes on dim 1, Keras on the last axis.
    y = labels((2, 5), 3)
    check(lambda torch, logits: torch.nn.functional.cross_entropy(logits, torch.tensor(y)),
          lambda tf, logits: tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(
              y, tf.transpose(logits, [0, 2, 1])),
          dict(logits=normal((2, 3, 5))))


def test_cross_entropy_with_probabilities_and_label_smoothing():
    target = np.eye(4, dtype=np.float32)[labels((5,), 4)]
    check(lambda torch, logits: torch.nn.functional.cross_entropy(logits, torch.tensor(target), label_smoothing=0.2),
          lambda tf, logits: tf.keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.2)(
              target, logits),
          dict(logits=normal((5, 4), scale=2.0)))


def test_soft_targets_are_differentiated_on_both_sides():
    check(lambda torch, logits, p: torch.nn.functional.cross_entropy(logits, p, reduction="none"),
          lambda tf, logits, p: tf.nn.softmax_cross_entropy_with_logits(labels=p, logits=logits),
          dict(logits=normal((3, 5)), p=np.full((3, 5), 0.2, np.float32)))


def test_class_weights_are_normalized_differently():
    # The documented difference: torch divides by sum(weight[y]), Keras' sample_weight by the batch size.
    y, weight = labels((8,), 3, seed=1), np.array([0.5, 2.0, 1.0], np.float32)
    logits = normal((8, 3))
    torch_mean, _ = check(
        lambda torch, logits: torch.nn.functional.cross_entropy(logits, torch.tensor(y), weight=torch.tensor(weight)),
        lambda tf, logits: tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
                                         * weight[y]) / weight[y].sum(), dict(logits=logits))
    keras_mean, _ = check(
        lambda torch, logits: (torch.nn.functional.cross_entropy(logits, torch.tensor(y), reduction="none")
                               * torch.tensor(weight[y])).mean(),
        lambda tf, logits: tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(
            y, logits, sample_weight=weight[y]), dict(logits=logits))
    np.testing.assert_allclose(keras_mean[0] * len(y), torch_mean[0] * weight[y].sum(), rtol=1e-5)


def test_nll_loss_of_log_softmax():
    y = labels((4,), 5, seed=2)
    check(lambda torch, x: torch.nn.functional.nll_loss(torch.log_softmax(x, 1), torch.tensor(y)),
          lambda tf, x: -tf.reduce_mean(tf.gather(tf.nn.log_softmax(x), y, axis=1, batch_dims=1)),
          dict(x=normal((4, 5))))


def test_mean_squared_and_absolute_errors():
    check(lambda torch, pred, target: (torch.nn.functional.mse_loss(pred, target),
                                       torch.nn.functional.l1_loss(pred, target)),
          lambda tf, pred, target: (tf.keras.losses.MeanSquaredError()(target, pred),
                                    tf.keras.losses.MeanAbsoluteError()(target, pred)),
          dict(pred=normal((4, 3)), target=normal((4, 3), 1) + 0.5))


def test_huber():
    check(lambda torch, pred, target: torch.nn.functional.huber_loss(pred, target, delta=1.5),
          lambda tf, pred, target: tf.keras.losses.Huber(delta=1.5)(target, pred),
          dict(pred=normal((5, 4), scale=2.0), target=normal((5, 4), 1, 2.0)))


def test_binary_cross_entropy_on_probabilities():
    # Probabilities away from 0 and 1, where Keras' clipping to [1e-7, 1 - 1e-7] changes nothing.
    target = (uniform((6, 2), 0, 1, 1) > 0.5).astype(np.float32)
    check(lambda torch, p: torch.nn.functional.binary_cross_entropy(p, torch.tensor(target)),
          lambda tf, p: tf.keras.losses.BinaryCrossentropy()(target, p),
          dict(p=uniform((6, 2), 0.05, 0.95)))


def test_binary_cross_entropy_with_logits():
    target = uniform((3, 4), 0, 1, 1)
    check(lambda torch, z: (torch.nn.functional.binary_cross_entropy_with_logits(z, torch.tensor(target)),
                            torch.nn.functional.binary_cross_entropy_with_logits(z, torch.tensor(target),
                                                                                 reduction="none")),
          lambda tf, z: (tf.keras.losses.BinaryCrossentropy(from_logits=True)(target, z),
                         tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=z)),
          dict(z=normal((3, 4), scale=3.0)))


def test_kl_divergence():
    # torch takes log-probabilities of the prediction, Keras probabilities (clipped to [1e-7, 1]).
    p = uniform((4, 5), 0.1, 1.0, 1)
    p /= p.sum(1, keepdims=True)
    check(lambda torch, z: torch.nn.functional.kl_div(torch.log_softmax(z, 1), torch.tensor(p), reduction="batchmean"),
          lambda tf, z: tf.keras.losses.KLDivergence()(p, tf.nn.softmax(z)),
          dict(z=normal((4, 5))))


def test_cosine_similarity():
    # Keras' loss is the negative mean cosine similarity.
    check(lambda torch, a, b: -torch.nn.functional.cosine_similarity(a, b, dim=1).mean(),
          lambda tf, a, b: tf.keras.losses.CosineSimilarity(axis=1)(b, a),
          dict(a=normal((4, 6)), b=normal((4, 6), 1)))


def test_ctc_loss():
    # torch takes time-major log-probabilities, padded targets and both lengths; Keras' ctc takes batch-major
    # scores (normalizing them itself), labels padded with the blank 0 and uses every time step.
    targets = np.array([[1, 2, 2, 0], [3, 1, 0, 0]], np.int64)
    steps = 7

    def torch_ctc(torch, logits):
        return torch.nn.functional.ctc_loss(torch.log_softmax(logits, 2), torch.tensor(targets),
                                            torch.tensor([steps, steps]), torch.tensor([3, 2]), reduction="none")

    def tf_ctc(tf, logits):
        return tf.keras.losses.ctc(targets, tf.transpose(logits, [1, 0, 2]))

    # CTC is no ONNX operator: no exports.
    check(torch_ctc, tf_ctc, dict(logits=normal((steps, 2, 4))), exports=False)
