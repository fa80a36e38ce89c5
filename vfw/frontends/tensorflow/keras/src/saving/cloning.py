"""``keras.models.clone_model``: the same architecture with new layers (new weights), as Keras 3.15.1.

Sequential models get a clone of each layer (``clone_function``, by default
``layer.__class__.from_config(layer.get_config())``) on a new ``Input`` like the original's;
Functional models rerun their graph of layer calls on new inputs, each layer replaced by its
clone (``call_function(layer, *args, **kwargs)`` makes each call).  Other models are rebuilt from
their config.  A compiled model's clone is compiled from its compile config.
"""

from vfw.frontends.tensorflow import nest


def clone_model(model, input_tensors=None, clone_function=None, call_function=None, recursive=False, **kwargs):
    """A copy of ``model``'s architecture with newly created weights.

    Parameters
    ----------
    model : keras.Model
    input_tensors : KerasTensor or structure of them, optional
        Inputs to build the clone on (default: new ``Input``s like the model's).
    clone_function : callable, optional
        ``fn(layer) -> layer`` making the clone of each non-input layer (Sequential and Functional
        models only).
    call_function : callable, optional
        ``fn(layer, *args, **kwargs)`` calling each cloned layer (Functional models only).
    recursive : bool
        Clone nested Sequential/Functional models with ``clone_model`` (the same functions) instead
        of ``clone_function``.

    Returns
    -------
    keras.Model
    """
    from vfw.frontends.tensorflow.keras.src.engine.functional import Functional
    from vfw.frontends.tensorflow.keras.src.engine.sequential import Sequential
    from vfw.frontends.tensorflow.keras.src.utils import serialization

    cache = kwargs.pop("cache", None)
    if kwargs:
        raise ValueError(f"Unexpected keyword argument(s): {tuple(kwargs.keys())}")
    if isinstance(model, Sequential):
        wrapped = _cloner(clone_function, call_function, recursive, cache)
        if call_function is not None:
            raise ValueError("`call_function` argument is not supported with Sequential models.  In a Sequential "
                             "model, layers aren't called at model-construction time (they're merely listed). Use "
                             "`call_function` with Functional models only. Received model of type "
                             f"'{type(model).__name__}', with call_function={wrapped}")
        return _clone_sequential(model, wrapped, input_tensors)
    if isinstance(model, Functional):
        return _clone_functional(model, _cloner(clone_function, call_function, recursive, cache), input_tensors,
                                 call_function)
    if clone_function or input_tensors:
        raise ValueError("Arguments `clone_function` and `input_tensors` are only supported for Sequential models or "
                         f"Functional models. Received model of type '{type(model).__name__}', with "
                         f"clone_function={clone_function} and input_tensors={input_tensors}")
    if call_function is not None:
        raise ValueError("Argument `call_function` is only supported for Functional models. Received model of type "
                         f"'{type(model).__name__}', with call_function={clone_function}")
    config = serialization.serialize_keras_object(model)
    return serialization.deserialize_keras_object(config, custom_objects={type(model).__name__: type(model)})


def _cloner(clone_function, call_function, recursive, cache):
    """``clone_function`` made to clone each layer once (and nested models with ``clone_model`` if ``recursive``)."""
    from vfw.frontends.tensorflow.keras.src.engine.functional import Functional
    from vfw.frontends.tensorflow.keras.src.engine.sequential import Sequential

    if clone_function is None:
        def clone_function(layer):
            return layer.__class__.from_config(layer.get_config())
    cache = {} if cache is None else cache

    def clone(layer):
        if id(layer) not in cache:
            if recursive and isinstance(layer, (Sequential, Functional)):
                nested_call = call_function if isinstance(layer, Functional) else None
                cache[id(layer)] = clone_model(layer, clone_function=clone_function, call_function=nested_call,
                                               recursive=True, cache=cache)
            else:
                cache[id(layer)] = clone_function(layer)
        return cache[id(layer)]

    return clone


def _compile_like(clone, model):
    if model.compiled:
        clone.compile_from_config(model.get_compile_config())
    return clone


def _clone_sequential(model, clone, input_tensors):
    from vfw.frontends.tensorflow.keras.src.engine.input_layer import Input, InputLayer
    from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
    from vfw.frontends.tensorflow.keras.src.engine.sequential import Sequential

    layers = [clone(layer) for layer in model.layers]
    first = model._layers[0] if model._layers else None
    reference = first if isinstance(first, InputLayer) else None
    name = reference.name if reference is not None else None
    optional = reference.optional if reference is not None else False
    if input_tensors is not None:
        if isinstance(input_tensors, (list, tuple)):
            if len(input_tensors) != 1:
                raise ValueError("Argument `input_tensors` must contain a single tensor.")
            input_tensors = input_tensors[0]
        if not isinstance(input_tensors, KerasTensor):
            raise ValueError("Argument `input_tensors` must be a KerasTensor. Received invalid value: "
                             f"input_tensors={input_tensors}")
        layers = [Input(tensor=input_tensors, name=name, optional=optional)] + layers
    elif reference is not None:
        layers = [Input(batch_shape=reference.batch_shape, dtype=reference.dtype, name=name,
                        optional=optional)] + layers
    return _compile_like(Sequential(layers, name=model.name, trainable=model.trainable), model)


def _clone_functional(model, clone, input_tensors, call_function):
    from vfw.frontends.tensorflow.keras.src.engine.functional import Functional
    from vfw.frontends.tensorflow.keras.src.engine.functional_config import functional_like_constructor
    from vfw.frontends.tensorflow.keras.src.engine.input_layer import Input
    from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor

    if input_tensors is not None:
        if not all(isinstance(x, KerasTensor) for x in nest.flatten(input_tensors)):
            raise ValueError("All entries in `input_tensors` must be KerasTensors. Received invalid values: "
                             f"inputs_tensors={input_tensors}")
        try:
            nest.assert_same_structure(input_tensors, model.input)
        except (ValueError, TypeError) as e:
            raise ValueError(f"`input_tensors` must have the same structure as model.input\nReference structure: "
                             f"{model.input}\nReceived structure: {input_tensors}") from e
    else:
        input_tensors = nest.map_structure(lambda x: Input(batch_shape=x.shape, dtype=x.dtype, name=x.name),
                                           model.input)

    def operation_call(operation):
        new_operation = clone(operation)
        if call_function is None:
            return new_operation
        return lambda *args, **kwargs: call_function(new_operation, *args, **kwargs)

    outputs = model._run_through_graph(nest.flatten(input_tensors), operation_call)
    cls = type(model) if functional_like_constructor(type(model)) else Functional
    return _compile_like(cls(input_tensors, outputs, name=model.name), model)
