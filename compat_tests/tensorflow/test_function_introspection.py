"""tf.function introspection against TF 2.21: ``pretty_printed_concrete_signatures``, ``function_spec``,
``function_type``, ``experimental_get_compiler_ir``; ConcreteFunction ``pretty_printed_signature``,
``variables``, ``trainable_variables``, ``captured_inputs``, ``graph``."""

import os
import re

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vfw_tf  # noqa: E402

LIBS = (real_tf, vfw_tf)


def _ids_hidden(text):
    """Capture lines name a handle by its ``id``, which differs run to run."""
    return re.sub(r"\d{6,}", "ID", text)


def _both(fn):
    """``fn(tf)`` in real TF and in vfw."""
    return [fn(tf) for tf in LIBS]


_KEPT = []  # TF's functions hold their captured variables weakly: keep them alive


def _with_variables(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    u = tf.Variable(3.0, trainable=False, name="u")
    _KEPT.extend([v, u])

    @tf.function(autograph=False)
    def f(x, y=2, scale=1.0):
        return x * v * scale + u + y

    return f


def test_pretty_printed_concrete_signatures_follow_traces():
    def fn(tf):
        f = _with_variables(tf)
        texts = [f.pretty_printed_concrete_signatures()]
        f(tf.constant([1.0, 2.0]))
        f(tf.constant([3.0, 4.0]))  # same trace
        f(tf.constant([[1.0, 2.0]]), 3)
        texts += [_ids_hidden(f.pretty_printed_concrete_signatures()), f.pretty_printed_concrete_signatures(False)]
        return texts

    real, ours = _both(fn)
    assert real == ours
    assert real[0] == ""


def test_concrete_function_signature_variables_and_captures():
    def fn(tf):
        c = _with_variables(tf).get_concrete_function(tf.TensorSpec([None], tf.float32))
        return (_ids_hidden(c.pretty_printed_signature()), c.pretty_printed_signature(verbose=False),
                str(c.function_type), _ids_hidden(repr(c.function_type)), len(c.captured_inputs),
                [v.name for v in c.variables], [v.name for v in c.trainable_variables])

    real, ours = _both(fn)
    assert real == ours


def test_nested_inputs_outputs_and_keyword_only_parameters():
    def fn(tf):
        @tf.function(autograph=False)
        def a(xs, flag=True, name="s", *, k=None):
            return [xs[0], None, {"z": 1.5, "a": (xs[1], 2)}]

        c = a.get_concrete_function([tf.constant(1.0), tf.constant([1, 2])])
        return c.pretty_printed_signature(), c.pretty_printed_signature(verbose=False), c.variables

    real, ours = _both(fn)
    assert real == ours


def test_input_signature_function():
    def fn(tf):
        @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32, name="inp")])
        def g(a):
            return {"t": (a, a + 1), "s": tf.reduce_sum(a)}

        spec = g.function_spec
        return (g.pretty_printed_concrete_signatures(), str(g.function_type), repr(g.function_type),
                repr(spec.input_signature),
                repr(spec.flat_input_signature), g.get_concrete_function().captured_inputs)

    real, ours = _both(fn)
    assert real == ours


def test_function_spec_and_type():
    def fn(tf):
        f = _with_variables(tf)

        @tf.function(autograph=False, jit_compile=True)
        def k(a, *rest, b=3, **kw):
            return a

        out = []
        for func in (f, k):
            spec = func.function_spec
            out.append((str(func.function_type), repr(func.function_type), spec.fullargspec, spec.input_signature,
                        spec.jit_compile, spec.arg_names, spec.default_values, spec.is_pure, spec.flat_input_signature,
                        spec.signature_summary(), spec.signature_summary(True)))
        return out

    real, ours = _both(fn)
    assert real == ours


def test_varargs_concrete_signature():
    def fn(tf):
        v = tf.Variable([1.0, 2.0], name="w")
        _KEPT.append(v)

        @tf.function(autograph=False)
        def k(a, *rest, b=3, **kw):
            return a * v

        c = k.get_concrete_function(tf.constant([1.0, 2.0]), 5, b=4, z=1)
        return _ids_hidden(c.pretty_printed_signature()), str(c.function_type), [x.name for x in c.variables]

    real, ours = _both(fn)
    assert real == ours


def test_compiler_ir_needs_jit_compile():
    errors = []
    for tf in LIBS:
        f = _with_variables(tf)
        with pytest.raises(ValueError) as info:
            f.experimental_get_compiler_ir(tf.constant([1.0, 2.0]))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_vfw_without_xla_and_graph_def_say_so():
    jitted = vfw_tf.function(lambda x: x * 2, jit_compile=True)
    with pytest.raises(NotImplementedError, match="no XLA"):
        jitted.experimental_get_compiler_ir(vfw_tf.constant(1.0))
    c = _with_variables(vfw_tf).get_concrete_function(vfw_tf.TensorSpec([2], vfw_tf.float32))
    real_c = _with_variables(real_tf).get_concrete_function(real_tf.TensorSpec([2], real_tf.float32))
    assert [(o.shape, o.dtype.name) for o in c.graph.outputs] == [(o.shape, o.dtype.name) for o in
                                                                   real_c.graph.outputs]
    assert [v.name for v in c.graph.variables] == [v.name for v in real_c.graph.variables]
    with pytest.raises(NotImplementedError, match="GraphDef"):
        c.graph.as_graph_def()
