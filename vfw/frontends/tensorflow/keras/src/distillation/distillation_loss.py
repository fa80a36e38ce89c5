"""``keras.distillation`` losses: how a student's outputs are compared with a teacher's.

As Keras 3.15: ``LogitsDistillation`` divides both models' logits by the temperature and applies its
loss (softmax probabilities and a ``temperature**2`` factor only for a ``KLDivergence`` *instance*;
the default string ``"kl_divergence"`` resolves to the plain function, which gets the scaled
logits); ``FeatureDistillation`` compares outputs of named layers (or the final outputs). Nested
outputs take a nested structure of losses, ``None`` skipping an output; the per-output means are summed.
"""

from vfw.frontends.tensorflow.keras.src import losses, ops, tree
from vfw.frontends.tensorflow.keras.src.utils import serialization


def _loss_function(loss):
    """A loss function for a loss identifier (a string name), the loss itself otherwise."""
    if isinstance(loss, str):
        found = losses.get(loss)
        if found is None:
            raise ValueError(f"Unknown loss function: '{loss}'.")
        return found
    return loss


def _summed_means(loss_structure, apply_loss, teacher_outputs, student_outputs):
    """The sum over outputs of ``apply_loss(loss, teacher_output, student_output)`` (0 for a None loss)."""
    values = tree.map_structure(lambda fn, t, s: 0.0 if fn is None else apply_loss(fn, t, s),
                                loss_structure, teacher_outputs, student_outputs)
    return ops.sum(ops.stack(tree.flatten(values)))


class DistillationLoss:
    """Base class of distillation losses: subclasses implement ``compute_loss``."""

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        """The scalar loss between the teacher's and the student's outputs (single tensors or nested)."""
        raise NotImplementedError("Subclasses must implement compute_loss")

    def validate_outputs(self, teacher_outputs, student_outputs):
        """Raise ValueError when the teacher's and the student's outputs differ in structure."""
        tree.assert_same_structure(teacher_outputs, student_outputs)

    def validate_model_compatibility(self, teacher, student):
        """Raise ValueError when this loss cannot apply to these models (the base accepts any)."""


class FeatureDistillation(DistillationLoss):
    """The loss between intermediate features (layer outputs) of the teacher and the student.

    Parameters
    ----------
    loss : str, loss, or nested structure of them (None skips an output), default "mse"
    teacher_layer_name, student_layer_name : str, optional
        The layers whose outputs are compared; None: the model's final output.
    """

    def __init__(self, loss="mse", teacher_layer_name=None, student_layer_name=None):
        self.teacher_layer_name = teacher_layer_name
        self.student_layer_name = student_layer_name
        self.loss = tree.map_structure(_loss_function, loss)
        if all(fn is None for fn in tree.flatten(self.loss)):
            raise ValueError("The `loss` argument in `FeatureDistillation` must contain at least one non-`None` "
                             "value.")

    def validate_model_compatibility(self, teacher, student):
        if self.teacher_layer_name is not None or self.student_layer_name is not None:
            subclassed = [role for role, model in (("teacher", teacher), ("student", student))
                          if getattr(model, "inputs", None) is None]
            if subclassed:
                raise ValueError(
                    "FeatureDistillation with specific layer names requires Functional or Sequential models. The "
                    f"{' and '.join(subclassed)} model(s) appear to be subclassed (no symbolic inputs/outputs). "
                    "Either use Functional/Sequential models, or use FeatureDistillation without layer names (to "
                    "distill final outputs only), or use LogitsDistillation instead.")
        for role, model, layer_name in (("teacher", teacher, self.teacher_layer_name),
                                        ("student", student, self.student_layer_name)):
            if layer_name is not None:
                try:
                    model.get_layer(name=layer_name)
                except ValueError as e:
                    raise ValueError(f"In {role} model: {e}") from None

    def validate_outputs(self, teacher_outputs, student_outputs):
        super().validate_outputs(teacher_outputs, student_outputs)
        try:
            tree.assert_same_structure(self.loss, teacher_outputs)
        except ValueError as e:
            raise ValueError(f"Loss structure mismatch. Loss structure: {tree.map_structure(lambda _: '*', self.loss)}"
                             f", Output structure: {tree.map_structure(lambda _: '*', teacher_outputs)}. "
                             f"Error: {e}") from None

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        return _summed_means(self.loss, lambda fn, t, s: ops.mean(fn(t, s)), teacher_outputs, student_outputs)

    def get_config(self):
        return {"loss": losses.serialize(self.loss), "teacher_layer_name": self.teacher_layer_name,
                "student_layer_name": self.student_layer_name}

    @classmethod
    def from_config(cls, config):
        return cls(**dict(config, loss=losses.deserialize(config["loss"])))


class LogitsDistillation(DistillationLoss):
    """The loss between temperature-scaled logits of the teacher and the student.

    Parameters
    ----------
    temperature : int or float, default 3.0
        Both models' logits are divided by it; positive.
    loss : str, loss, or nested structure of them (None skips an output), default "kl_divergence"
    """

    def __init__(self, temperature=3.0, loss="kl_divergence"):
        self.temperature = temperature
        self.loss = tree.map_structure(_loss_function, loss)
        if all(fn is None for fn in tree.flatten(self.loss)):
            raise ValueError("At least one loss must be non-`None`.")
        if not isinstance(temperature, (int, float)):
            raise ValueError(f"temperature must be a number, got {type(temperature)}")
        if temperature <= 0.0:
            raise ValueError("temperature must be positive.")

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        def scaled(outputs):
            return tree.map_structure(lambda x: ops.divide(x, self.temperature), outputs)

        def apply_loss(fn, teacher_logits, student_logits):
            if isinstance(fn, losses.KLDivergence):
                probabilities = fn(ops.softmax(teacher_logits, axis=-1), ops.softmax(student_logits, axis=-1))
                return ops.mean(probabilities) * (self.temperature ** 2)
            return ops.mean(fn(teacher_logits, student_logits))

        return _summed_means(self.loss, apply_loss, scaled(teacher_outputs), scaled(student_outputs))

    def get_config(self):
        return {"temperature": self.temperature, "loss": serialization.serialize_keras_object(self.loss)}

    @classmethod
    def from_config(cls, config):
        return cls(**dict(config, loss=losses.deserialize(config["loss"])))


API = {"distillation": ["DistillationLoss", "FeatureDistillation", "LogitsDistillation"]}
