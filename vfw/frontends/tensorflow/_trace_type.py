"""The parts of TF's ``TraceType`` protocol (how tf.function describes an argument) shared by descriptions that
stand for no tensor: ``tf.TensorShape`` and ``tf.DType`` flatten to no placeholders and carry no tensors."""


class ValuelessTraceType:
    """TraceType methods of a description holding no tensor (mixed into TensorShape and DType)."""

    __slots__ = ()

    def flatten(self):
        """list: the TraceTypes of the tensors this stands for (none)."""
        return []

    def to_tensors(self, value):
        """list: the tensors making up ``value`` (none)."""
        return []

    def from_tensors(self, tensors):
        """The value rebuilt from an iterator of tensors: None, as TF (this stands for no tensor)."""
        return None

    def placeholder_value(self, placeholder_context):
        """The value tracing uses for an argument of this type: None, as TF."""
        return None
