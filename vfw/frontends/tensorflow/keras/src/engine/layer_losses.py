"""A layer's losses: ``add_loss`` inside ``call``, activity regularization, weight regularization penalties.

Losses added during a call live until the next outermost layer call clears them (each layer's
``_clear_losses`` runs when a call context opens).  Inside a StatelessScope collecting losses they go
to the scope instead; inside one that does not (shape inference), they are dropped.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.engine.variables import get_stateless_scope, in_stateless_scope


class LayerLosses:
    """Mixin of ``Layer``: ``add_loss``, ``losses`` and their bookkeeping."""

    def _add_activity_losses(self, outputs):
        for output in nest.flatten(outputs):
            if tf.is_tensor(output):
                loss = self.activity_regularizer(output)
                if output.shape.rank:
                    batch = tf.cast(tf.shape(output)[0], loss.dtype)
                    loss = tf.math.divide_no_nan(loss, batch)
                self.add_loss(loss)

    def add_loss(self, loss):
        """Add a scalar loss tensor (inside ``call``); ``losses`` lists it until the next outer call."""
        losses = nest.flatten(loss)
        for x in losses:
            if not tf.is_tensor(x):
                raise ValueError("`add_loss()` can only be called from inside `build()` or `call()`, on a tensor "
                                 f"input. Received invalid value: {x}")
        if in_stateless_scope():
            scope = get_stateless_scope()
            if scope.collect_losses:
                for x in losses:
                    scope.add_loss(x)
                    self._loss_ids.add(id(x))
        else:
            self._losses.extend(losses)

    def _own_losses(self):
        if in_stateless_scope():
            return [x for x in get_stateless_scope().losses if id(x) in self._loss_ids]
        return self._losses[:]

    @property
    def losses(self):
        """list: losses added by this layer and its sublayers, then the weight regularization penalties."""
        if self._losses_override:
            return self._losses_override
        losses = self._own_losses()
        for layer in self._flatten_layers(include_self=False):
            losses.extend(layer._own_losses())
        for variable in self.trainable_weights:
            if variable.regularizer is not None:
                losses.append(variable.regularizer(variable))
        return losses

    def _clear_losses(self):
        if in_stateless_scope():
            scope = get_stateless_scope()
            if scope.collect_losses:
                scope.losses[:] = [x for x in scope.losses if id(x) not in self._loss_ids]
        self._losses.clear()
        self._loss_ids.clear()
        for layer in self._layers:
            layer._clear_losses()

    def add_metric(self, *args, **kwargs):
        raise NotImplementedError("Layer `add_metric()` method is deprecated. Add your metric in "
                                  "`Model.compile(metrics=[...])`, or create metric trackers in init() or build() "
                                  "when subclassing the layer or model, then call `metric.update_state()` whenever "
                                  "necessary.")
