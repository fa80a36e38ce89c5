"""torch.export.graph_signature: what each input and output of an exported program is."""

import dataclasses
import enum

__all__ = ["ExportGraphSignature", "InputKind", "InputSpec", "OutputKind", "OutputSpec", "TensorArgument"]


class InputKind(enum.Enum):
    """The role of a program input."""

    USER_INPUT = 1
    PARAMETER = 2
    BUFFER = 3
    CONSTANT_TENSOR = 4
    CUSTOM_OBJ = 5
    TOKEN = 6


class OutputKind(enum.Enum):
    """The role of a program output."""

    USER_OUTPUT = 1
    LOSS_OUTPUT = 2
    BUFFER_MUTATION = 3
    GRADIENT_TO_PARAMETER = 4
    GRADIENT_TO_USER_INPUT = 5
    USER_INPUT_MUTATION = 6
    TOKEN = 7


@dataclasses.dataclass
class TensorArgument:
    """A tensor value of the program, by name."""

    name: str


@dataclasses.dataclass
class InputSpec:
    """An input: its kind, its argument, the state-dict key it reads (``target``) and, for buffers, persistence."""

    kind: InputKind
    arg: TensorArgument
    target: str = None
    persistent: bool = None

    def __str__(self):
        target = "" if self.target is None else f" target='{self.target}'"
        persistent = "" if self.persistent is None else f" persistent={self.persistent}"
        return f"{self.arg.name}: {self.kind.name}{target}{persistent}"


@dataclasses.dataclass
class OutputSpec:
    """An output: its kind, its argument and (for mutations) what it writes."""

    kind: OutputKind
    arg: TensorArgument
    target: str = None

    def __str__(self):
        target = "" if self.target is None else f" target='{self.target}'"
        return f"{self.arg.name}: {self.kind.name}{target}"


@dataclasses.dataclass
class ExportGraphSignature:
    """The input specs (parameters, buffers, then user inputs) and output specs of an exported program."""

    input_specs: list
    output_specs: list

    def _inputs(self, kind):
        return tuple(s.target if kind is not InputKind.USER_INPUT else s.arg.name
                     for s in self.input_specs if s.kind is kind)

    @property
    def parameters(self):
        """State-dict keys of the parameters the program reads."""
        return self._inputs(InputKind.PARAMETER)

    @property
    def buffers(self):
        """State-dict keys of the buffers the program reads."""
        return self._inputs(InputKind.BUFFER)

    @property
    def user_inputs(self):
        """Names of the user inputs."""
        return self._inputs(InputKind.USER_INPUT)

    @property
    def user_outputs(self):
        """Names of the user outputs."""
        return tuple(s.arg.name for s in self.output_specs if s.kind is OutputKind.USER_OUTPUT)

    def __str__(self):
        inputs = "\n".join(map(str, self.input_specs))
        outputs = "\n".join(map(str, self.output_specs))
        return f"\n# inputs\n{inputs}\n\n# outputs\n{outputs}\n"
