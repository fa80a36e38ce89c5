"""tf.function's concrete functions: one trace, callable with arguments matching its input signature.

Also the conversions of arguments and results that tf.function and its concrete functions share.
"""

import numpy as np

from vfw.core.graph.subgraph import SubgraphTrace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes, _traced_shapes, errors, nest
from vfw.frontends.tensorflow._function_introspection import ConcreteIntrospection
from vfw.frontends.tensorflow._silenced_prints import silenced_prints
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
        self._static_outputs = None  # the output specs of the run made when TF traces (see trace_outputs)

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
        """The output structure, with a TensorSpec per tensor (TF's static shapes: dims that depend on unknown input
        dims are None)."""
        if self._outputs is None:
            with silenced_prints():  # TF's trace printed when the concrete function was made
                static = self._static_outputs
                if static is None:
                    try:
                        static = self.trace_outputs()
                    except Exception:  # noqa: BLE001  (code reading an unknown dim as a number: sizes alone)
                        static = None
                # a dim is None where the static shapes say so, or where it follows the unknown input dims (an op
                # whose static shape vfw does not infer shows the example's size)
                runs = self._outputs_of_example_runs()
                self._outputs = runs if static is None else nest.pack_sequence_as(runs, [
                    _merged_spec(a, b) for a, b in zip(nest.flatten(static), nest.flatten(runs))])
        return self._outputs

    def trace_outputs(self):
        """Run the function once as TF traces it: on example tensors showing it the signature's static shapes
        (None dims, named after their parameters); returns the output structure with the static shape of each tensor
        (writes undone)."""
        args, kwargs = nest.map_structure(example, self._template)
        tensors = [t for t in nest.flatten((args, kwargs)) if isinstance(t, Tensor)]
        specs = [s for s in nest.flatten(self._template) if isinstance(s, TensorSpec)]
        declared = [(t, None if spec.shape.rank is None else tuple(spec.shape.as_list()))
                    for t, spec in zip(tensors, specs)]
        with _traced_shapes.showing_static_shapes(f"{self.name}_outputs", declared):
            self._function._name_arguments(args, kwargs)
            result = self._function._traced_function()(*args, **kwargs)
            return nest.pack_sequence_as(result, [_static_spec(x) for x in nest.flatten(result)])

    def _outputs_of_example_runs(self):
        """The output structure from runs at two sizes of the unknown dims (dims that differ: None)."""
        try:
            runs = [self._example_run(size) for size in (2, 3)]
        except errors.InvalidArgumentError:
            # an unknown dim that must broadcast against a fixed one (x[None] * v[2]): sizes 1 and 2 fit it
            runs = [self._example_run(size) for size in (1, 2)]
        first, second = (nest.flatten(run) for run in runs)
        return nest.pack_sequence_as(runs[0], [_merged_spec(a, b) for a, b in zip(first, second)])

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
            full[i] = _match(value, spec, self, args, kwargs)
        return self._function(*full, **template_kwargs)

    def _flat_binding_error(self, args, kwargs):
        """Why ``args``/``kwargs`` do not fit the flat signature (the tensor inputs, by name) either, as TF's
        message continues (None where they would)."""
        names = []
        params = [] if self._function._signature is None else list(self._function._signature.parameters)
        for i, value in enumerate(self._template[0]):
            specs = [x for x in nest.flatten(value) if isinstance(x, TensorSpec)]
            base = params[i] if i < len(params) else f"arg{i}"
            names += [spec.name or (base if k == 0 else f"{base}_{k}") for k, spec in enumerate(specs)]
        head = f"{self.name}({', '.join(names)})"
        if len(args) > len(names):
            return f"{head} takes {len(names)} positional arguments, got {len(args)}."
        unexpected = sorted(set(kwargs) - set(names))
        if unexpected:
            return f"{head} got unexpected keyword arguments: {', '.join(unexpected)}."
        return None

    def __repr__(self):
        return f"<ConcreteFunction {self.pretty_printed_signature(verbose=False)} at 0x{id(self):X}>"

    def __str__(self):
        return f"ConcreteFunction {self.pretty_printed_signature()}"


def _match(value, spec, concrete, args, kwargs):
    """``value`` checked against the traced ``spec`` (a TensorSpec structure or a Python value) of ``concrete``."""
    name = concrete.name
    if nest.is_nested(spec):
        items = nest.flatten(value) if nest.is_nested(value) else [value]
        matched = [_match(v, s, concrete, args, kwargs) for v, s in zip(items, nest.flatten(spec))]
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
        flat = concrete._flat_binding_error(args, kwargs)
        raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast {value!r} to Literal[{spec!r}]`. "
                        f"{describe_args(args, kwargs)} for signature: "
                        f"{concrete.pretty_printed_signature(verbose=False)}."
                        + ("" if flat is None else f"\nFallback to flat signature also failed due to: {flat}"))
    return value


def _static_spec(x):
    """A traced result's TensorSpec with its static shape (None kept; other values as tensors, as TF returns them)."""
    t = result_as_tensor(x)
    return None if t is None else TensorSpec(_traced_shapes.shown_shape(t), _dtypes.of_array(t.array))


def _merged_spec(a, b):
    """The spec covering specs ``a`` and ``b`` (dims where they differ or either is None: None); else ``a``."""
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        return TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
    return a
