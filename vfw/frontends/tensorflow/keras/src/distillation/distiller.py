"""``keras.distillation.Distiller``: a model training a student from a frozen teacher (Keras 3.15's algorithm).

The total loss of a step is ``w * student_loss + (1 - w) * sum_i(weight_i * distillation_loss_i)``, ``w`` the
``student_loss_weight``; the student loss is the compiled loss on the labels (skipped when ``w`` is 0 or there are
no labels), the distillation losses compare the teacher's outputs (``training=False``) with the student's (final
outputs, or named layers' outputs through feature-extractor models). Three ``Mean`` trackers report
``student_loss``, ``distillation_loss`` and ``total_loss`` besides the usual ``loss``.
"""

from vfw.frontends.tensorflow.keras.src import ops, tree
from vfw.frontends.tensorflow.keras.src.distillation.distillation_loss import _loss_function
from vfw.frontends.tensorflow.keras.src.engine.model import Model
from vfw.frontends.tensorflow.keras.src.engine.sequential import Sequential
from vfw.frontends.tensorflow.keras.src.metrics.reduction import Mean
from vfw.frontends.tensorflow.keras.src.utils import serialization

_FINAL = "final_output"


class Distiller(Model):
    """A student model trained to match a teacher model (and, optionally, the labels).

    Parameters
    ----------
    teacher, student : keras.Model
        Compatible input/output shapes and dtypes; the teacher is frozen (``trainable = False``).
    distillation_losses : DistillationLoss or list of them
    distillation_loss_weights : list of float, optional
        One per distillation loss (default 1.0 each).
    student_loss_weight : float in [0, 1], default 0.5
    name : str, default "distiller"
    """

    def __init__(self, teacher, student, distillation_losses, distillation_loss_weights=None,
                 student_loss_weight=0.5, name="distiller", **kwargs):
        super().__init__(name=name, **kwargs)
        _check_models(teacher, student)
        self.teacher = teacher
        self.student = student
        if not isinstance(student_loss_weight, (int, float)):
            raise ValueError(f"student_loss_weight must be a number, got {type(student_loss_weight)}")
        if not 0.0 <= student_loss_weight <= 1.0:
            raise ValueError(f"student_loss_weight must be between 0.0 and 1.0, got {student_loss_weight}")
        self.student_loss_weight = student_loss_weight
        if distillation_losses is None:
            raise ValueError("'distillation_losses' cannot be `None`. Provide a distillation loss (e.g., "
                             "LogitsDistillation or FeatureDistillation) or a list of distillation losses.")
        if not isinstance(distillation_losses, (list, tuple)):
            distillation_losses, distillation_loss_weights = [distillation_losses], [1.0]
        elif distillation_loss_weights is None:
            distillation_loss_weights = [1.0] * len(distillation_losses)
        elif len(distillation_loss_weights) != len(distillation_losses):
            raise ValueError(f"Number of distillation_loss_weights ({len(distillation_loss_weights)}) must match "
                             f"number of distillation_losses ({len(distillation_losses)})")
        self.distillation_losses = distillation_losses
        self.distillation_loss_weights = distillation_loss_weights
        for distillation_loss in distillation_losses:
            distillation_loss.validate_model_compatibility(teacher, student)
        self._teacher_feature_extractor = _feature_extractor(teacher, _layer_names(distillation_losses, "teacher"))
        self._student_feature_extractor = _feature_extractor(student, _layer_names(distillation_losses, "student"))
        self.teacher.trainable = False
        self.student_loss_tracker = Mean(name="student_loss")
        self.distillation_loss_tracker = Mean(name="distillation_loss")
        self.total_loss_tracker = Mean(name="total_loss")

    def compile(self, optimizer="adam", loss=None, metrics=None, **kwargs):
        """Compile with ``loss`` as the student loss (required; the model itself compiles without a loss)."""
        if loss is None:
            raise ValueError("'loss' cannot be `None`.")
        self._student_loss = tree.map_structure(_loss_function, loss)
        self._student_loss_for_serialization = loss
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            raise ValueError(f"metrics must be a list or tuple, got {type(metrics)}")
        super().compile(optimizer=optimizer, loss=None, metrics=metrics, **kwargs)

    def call(self, inputs, training=None, **kwargs):
        return self.student(inputs, training=training, **kwargs)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        if y_pred is None:
            y_pred = self(x, training=training)
        student_loss = 0.0
        if self.student_loss_weight > 0.0 and y is not None:
            flat = tree.flatten(tree.map_structure(lambda fn, target, pred: fn(target, pred),
                                                   self._student_loss, y, y_pred))
            student_loss = ops.sum(ops.stack(flat)) if len(flat) > 1 else flat[0]
            if len(getattr(student_loss, "shape", ())) > 0:
                student_loss = ops.mean(student_loss)
        distillation_loss = 0.0
        if self.student_loss_weight < 1.0:
            distillation_loss = self._distillation_loss(x, y_pred)
        total_loss = ops.add(ops.multiply(self.student_loss_weight, student_loss),
                             ops.multiply(ops.subtract(1.0, self.student_loss_weight), distillation_loss))
        self.student_loss_tracker.update_state(student_loss)
        self.distillation_loss_tracker.update_state(distillation_loss)
        self.total_loss_tracker.update_state(total_loss)
        return total_loss

    def _distillation_loss(self, x, y_pred):
        """The weighted sum of the distillation losses on the batch ``x`` (student predictions ``y_pred``)."""
        if self._teacher_feature_extractor is not None:
            teacher_features = self._teacher_feature_extractor(x, training=False)
        else:
            teacher_features = {_FINAL: self.teacher(x, training=False)}
        if self._student_feature_extractor is not None:
            student_features = self._student_feature_extractor(x, training=True)
        else:
            student_features = {_FINAL: y_pred}
        total = 0.0
        for loss_fn, weight in zip(self.distillation_losses, self.distillation_loss_weights):
            if getattr(loss_fn, "teacher_layer_name", None) is not None:
                try:
                    teacher_output = _features(teacher_features, loss_fn.teacher_layer_name)
                    student_output = _features(student_features, loss_fn.student_layer_name)
                except ValueError as e:
                    raise RuntimeError(
                        f"Failed to extract features for {type(loss_fn).__name__} targeting teacher layer "
                        f"'{loss_fn.teacher_layer_name}' and student layer '{loss_fn.student_layer_name}'. "
                        f"Original error: {e}") from e
            else:
                teacher_output, student_output = teacher_features[_FINAL], y_pred
            loss_fn.validate_outputs(teacher_output, student_output)
            loss = loss_fn.compute_loss(teacher_output, student_output)
            if len(getattr(loss, "shape", ())) > 0:
                raise ValueError(f"Distillation loss {type(loss_fn).__name__} returned a non-scalar loss with shape "
                                 f"{loss.shape}. The compute_loss method must return a scalar tensor.")
            total = ops.add(total, ops.multiply(weight, loss))
        return total

    def reset_metrics(self):
        super().reset_metrics()
        for tracker in (self.student_loss_tracker, self.distillation_loss_tracker, self.total_loss_tracker):
            tracker.reset_state()

    def get_config(self):
        config = super().get_config()
        config.update({
            "teacher": serialization.serialize_keras_object(self.teacher),
            "student": serialization.serialize_keras_object(self.student),
            "distillation_losses": [serialization.serialize_keras_object(x) for x in self.distillation_losses],
            "distillation_loss_weights": self.distillation_loss_weights,
            "student_loss_weight": self.student_loss_weight,
        })
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("teacher", "student"):
            config[key] = serialization.deserialize_keras_object(config[key])
        config["distillation_losses"] = [serialization.deserialize_keras_object(x)
                                         for x in config["distillation_losses"]]
        return cls(**config)


def _check_models(teacher, student):
    """Raise ValueError unless both are models with compatible input/output shapes and dtypes."""
    for role, model in (("Teacher", teacher), ("Student", student)):
        if not isinstance(model, Model):
            raise ValueError(f"{role} must be a keras.Model, got {type(model)}")
    for attribute, context in (("inputs", "input"), ("outputs", "output")):
        _check_pairs(teacher, student, attribute, lambda t, s, c=context: _check_shapes(tuple(t.shape),
                                                                                        tuple(s.shape), c))
    for attribute, context in (("inputs", "input"), ("outputs", "output")):
        if not _check_pairs(teacher, student, attribute, lambda t, s, c=context: _check_dtypes(t.dtype, s.dtype, c)):
            return  # as Keras: without inputs, the outputs' dtypes are not compared


def _check_pairs(teacher, student, attribute, check):
    """``check`` each pair of the models' ``attribute`` tensors; False when a model has none."""
    teacher_tensors, student_tensors = getattr(teacher, attribute, None), getattr(student, attribute, None)
    if teacher_tensors is None or student_tensors is None:
        return False
    tree.map_structure(check, teacher_tensors, student_tensors)
    return True


def _check_shapes(teacher_shape, student_shape, context):
    if len(teacher_shape) != len(student_shape):
        raise ValueError(f"Teacher and student {context} shapes have different dimensions. Teacher: {teacher_shape}, "
                         f"Student: {student_shape}.")
    if any(a is not None and b is not None and a != b for a, b in zip(teacher_shape, student_shape)):
        raise ValueError(f"Teacher and student {context} shapes are incompatible. Teacher: {teacher_shape}, "
                         f"Student: {student_shape}. All dimensions must match.")


def _check_dtypes(teacher_dtype, student_dtype, context):
    if teacher_dtype != student_dtype:
        raise ValueError(f"Teacher and student {context} dtypes must match. Teacher: {teacher_dtype}, "
                         f"Student: {student_dtype}.")


def _layer_names(distillation_losses, role):
    """The distinct layer names the losses read from the ``role`` model, in order."""
    names = []
    for loss in distillation_losses:
        name = getattr(loss, f"{role}_layer_name", None)
        if name and name not in names:
            names.append(name)
    return names


def _feature_extractor(model, layer_names):
    """A model giving ``{"final_output": ..., layer_name: layer output...}``; None without layer names."""
    if not layer_names:
        return None
    if getattr(model, "inputs", None) is None:
        raise ValueError(f"Cannot create feature extractor for {model.name}. The model has no symbolic inputs "
                         "attribute.")
    outputs = {_FINAL: model.layers[-1].output if isinstance(model, Sequential) else model.output}
    for name in layer_names:
        outputs[name] = model.get_layer(name=name).output
    return Model(inputs=model.inputs, outputs=outputs, name=f"{model.name}_multi_feature_extractor")


def _features(features, layer_name):
    name = layer_name or _FINAL
    if name not in features:
        raise ValueError(f"Layer '{name}' not found in extracted features. Available: {list(features)}")
    return features[name]


API = {"distillation": ["Distiller"]}
