"""tf.function's concrete functions: one trace, callable with arguments matching its input signature.

Also the conversions of arguments and results that tf.function and its concrete functions share.
"""

import numpy as np

from vfw.core.graph.subgraph import SubgraphTrace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes, errors, nest
from vfw.frontends.tensorflow._function_introspection import ConcreteIntrospection
from vfw.frontends.tensorflow._tensor import Tensor
from vfw.frontends.tensorflow._tensor_spec import TensorSpec, spec_of


def describe_args(args, kwargs):
    return f"Received args: {args!r} and kwargs: {kwargs!r}"


def result_as_tensor(x):
    """A result as TF returns it: tensors (variables read, Python numbers, strings and numpy values converted),
    None kept."""
    if x is None or isinstance(x, Tensor):
        return x
    if isinstance(x, CoreTensor) and not hasattr(x, "_as_tensor"):
        return _dispatch.as_tf(x)
    return _dispatch.convert_to_tensor(x)


def as_spec(x):
    if isinstance(x, TensorSpec):
        return x
    spec = spec_of(x)
    return spec if spec is not None else x


def example(x, size=1):
    """A tensor matching a TensorSpec (unknown dims of ``size``); other values unchanged."""
    if not isinstance(x, TensorSpec):
        return x
    dims = [size if d is None else d for d in (x.shape.as_list() if x.shape.rank is not None else [size])]
    return _dispatch.wrap(np.zeros(dims, x.dtype.np))


class ConcreteFunction(ConcreteIntrospection):
    """One trace of a tf.function, for arguments matching its input signature.

    Calling it runs the function's graph for those arguments (Python arguments fixed when it was
    made may be omitted).
    """

    def __init__(self, function, template):
        self._function = function
        self._template = template  # (args, kwargs) with TensorSpec leaves for the tensors
        self._outputs = None

    @property
    def name(self):
        """str: the function's name."""
        return self._function.name

    @property
    def structured_input_signature(self):
        """``(args, kwargs)`` with a TensorSpec (named after its parameter) for each tensor argument."""
        args, kwargs = self._template
        names = [] if self._function._signature is None else list(self._function._signature.parameters)
        named = tuple(TensorSpec(a.shape, a.dtype, a.name or names[i]) if isinstance(a, TensorSpec) and i < len(names)
                      else a for i, a in enumerate(args))
        return named, dict(kwargs)

    @property
    def structured_outputs(self):
        """The output structure, with a TensorSpec per tensor (dims that depend on unknown input dims: None)."""
        if self._outputs is None:
            try:
                runs = [self._example_run(size) for size in (2, 3)]
            except errors.InvalidArgumentError:
                # an unknown dim that must broadcast against a fixed one (x[None] * v[2]): sizes 1 and 2 fit it
                runs = [self._example_run(size) for size in (1, 2)]
            first, second = (nest.flatten(run) for run in runs)
            self._outputs = nest.pack_sequence_as(runs[0], [_merged_spec(a, b) for a, b in zip(first, second)])
        return self._outputs

    @property
    def outputs(self):
        """list of TensorSpec: the flat tensor outputs."""
        return [x for x in nest.flatten(self.structured_outputs) if isinstance(x, TensorSpec)]

    @property
    def inputs(self):
        """list of TensorSpec: the flat tensor inputs."""
        return [x for x in nest.flatten(self.structured_input_signature) if isinstance(x, TensorSpec)]

    @property
    def output_dtypes(self):
        """The outputs' DTypes, in the output structure."""
        return nest.map_structure(lambda s: s.dtype if isinstance(s, TensorSpec) else s, self.structured_outputs)

    @property
    def output_shapes(self):
        """The outputs' TensorShapes, in the output structure."""
        return nest.map_structure(lambda s: s.shape if isinstance(s, TensorSpec) else s, self.structured_outputs)

    def _example_run(self, size):
        """The function's results on example tensors, run so that it changes nothing (writes are undone)."""
        args, kwargs = nest.map_structure(lambda x: example(x, size), self._template)
        with SubgraphTrace(f"{self.name}_outputs", None):
            result = self._function._traced_function()(*args, **kwargs)
            return nest.map_structure(lambda x: as_spec(result_as_tensor(x)), result)

    def __call__(self, *args, **kwargs):
        template_args, template_kwargs = self._template
        signature = self._function._signature
        if signature is not None:
            try:
                bound = signature.bind_partial(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"Binding inputs to tf.function failed due to `{e}`. "
                                f"{describe_args(args, kwargs)}.") from None
            names = list(signature.parameters)
            given = dict(bound.arguments)
            full = [given.get(names[i], template_args[i]) if i < len(names) else template_args[i]
                    for i in range(len(template_args))]
        else:
            full = list(args) + list(template_args[len(args):])
        for i, (value, spec) in enumerate(zip(full, template_args)):
            full[i] = _match(value, spec, self.name, args, kwargs)
        return self._function(*full, **template_kwargs)

    def __repr__(self):
        return f"<ConcreteFunction {self.name} at 0x{id(self):X}>"


def _match(value, spec, name, args, kwargs):
    """``value`` checked against the traced ``spec`` (a TensorSpec structure or a Python value)."""
    if nest.is_nested(spec):
        items = nest.flatten(value) if nest.is_nested(value) else [value]
        matched = [_match(v, s, name, args, kwargs) for v, s in zip(items, nest.flatten(spec))]
        return nest.pack_sequence_as(spec, matched)
    if isinstance(spec, TensorSpec):
        tensor = _dispatch.convert_to_tensor(value, dtype_hint=spec.dtype)
        dtype = _dtypes.of_array(tensor.array)
        if dtype != spec.dtype:
            raise _dispatch.op_error(f"cannot compute __inference_{name} as input #0(zero-based) was expected to be "
                                     f"a {_dispatch.kernel_type_name(spec.dtype)} tensor but is a "
                                     f"{_dispatch.kernel_type_name(dtype)} tensor", f"__inference_{name}")
        return tensor
    if value is not spec and value != spec:
        raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast {value!r} to Literal[{spec!r}]`. "
                        f"{describe_args(args, kwargs)}.")
    return value


def _merged_spec(a, b):
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        return TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
    return a
