"""Fuzz the eager executor: random ops, inputs, shapes, dtypes and attributes.

Whatever is thrown at an op, the result is either a normal return of numpy
arrays or a vfw error; a bare numpy/Python exception is a bug.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vfw.core import VfwError, get_schema, op_types, run
from vfw.core import dtypes as dt
from vfw.core.ir import tensor_to_proto
from vfw.core.proto import GraphDef
from vfw.core.values import is_container

OPS = [name for name in op_types() if not name.startswith("Test")]
DTYPES = [dt.float32, dt.float64, dt.float16, dt.int64, dt.int32, dt.int8, dt.uint8, dt.bool_]
SMALL_INTS = st.integers(-3, 5)
SMALL_FLOATS = st.sampled_from([-2.0, -0.5, 0.0, 0.25, 1.0, 3.0, float("nan")])
# Subgraphs for control-flow ops: an identity, and a loop body (i, cond, x) -> (false, x) that always stops.
GRAPHS = [GraphDef(name="identity", input=["x"], output=["x"]),
          GraphDef(name="body", input=["i", "c", "x"], output=["stop", "x"],
                   initializer=[tensor_to_proto(np.array(False), "stop")])]


@st.composite
def arrays(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    if dtype == dt.bool_:
        values = draw(st.lists(st.booleans(), min_size=1, max_size=1))
    elif dtype.kind in "iu":
        values = draw(st.lists(st.integers(0 if dtype.kind == "u" else -3, 5), min_size=1, max_size=1))
    else:
        values = draw(st.lists(SMALL_FLOATS, min_size=1, max_size=1))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    base = rng.integers(-3, 6, size=shape) if dtype.kind != "b" else rng.random(shape) < 0.5
    if dtype.kind == "u":
        base = np.abs(base)
    array = np.asarray(base, dtype=dtype)
    if array.size:
        array.flat[0] = values[0]
    return array


def inputs_for(schema):
    one = st.one_of(arrays(), arrays(), arrays(), st.none(), st.sampled_from([1.5, [1, 2], "x"]))
    most = len(schema.inputs) + (2 if schema.inputs and schema.inputs[-1].variadic else 1)
    return st.lists(one, min_size=0, max_size=most)


def attr_values(decl):
    if decl.choices:
        choice = st.sampled_from(sorted(decl.choices, key=repr))
        return st.one_of(choice, choice, st.just("bogus"), SMALL_INTS)
    by_kind = {
        "int": SMALL_INTS,
        "float": SMALL_FLOATS,
        "string": st.sampled_from(["", "bogus", "ij,jk->ik", "NOTSET", "SAME_UPPER", "VALID", "linear"]),
        "ints": st.lists(SMALL_INTS, max_size=6),
        "floats": st.lists(SMALL_FLOATS, max_size=4),
        "strings": st.lists(st.sampled_from(["Tanh", "Sigmoid", "Relu", "bogus"]), max_size=6),
        "tensor": arrays(),
        "dtype": st.sampled_from([*DTYPES, "float32", 1, 7, 999, "bogus"]),
        "any": st.one_of(SMALL_INTS, SMALL_FLOATS, st.none()),
        "graph": st.sampled_from(GRAPHS),
    }
    return st.one_of(by_kind[decl.kind], st.sampled_from([None, "x", 2.5, [1.5]]))


@settings(max_examples=3000, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_failure_is_a_vfw_error(data):
    op_type = data.draw(st.sampled_from(OPS), label="op")
    schema = get_schema(op_type)
    inputs = data.draw(inputs_for(schema), label="inputs")
    names = data.draw(st.lists(st.sampled_from(sorted(schema.attrs) + ["not_an_attr"]), max_size=4, unique=True)
                      if schema.attrs else st.just([]), label="attr names")
    attrs = {name: data.draw(attr_values(schema.attrs[name]) if name in schema.attrs else SMALL_INTS, label=name)
             for name in names}
    try:
        result = run(op_type, *inputs, **attrs)
    except VfwError:
        return
    for r in result if isinstance(result, tuple) else (result,):
        assert r is None or isinstance(r, np.ndarray) or is_container(r), f"{op_type} returned {type(r).__name__}"
