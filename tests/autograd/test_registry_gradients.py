"""Every op of the registry is either differentiable with a gradient maker or declared not differentiable."""

from vfw.core import get_schema, op_types


def test_every_op_declares_its_differentiability():
    undeclared = [name for name in op_types() if not name.startswith("Test")
                  and get_schema(name).differentiable is None]
    assert undeclared == []


def test_differentiable_ops_have_makers_and_others_have_none():
    for name in op_types():
        schema = get_schema(name)
        if schema.differentiable:
            assert callable(schema.gradient), name
        elif schema.differentiable is False:
            assert schema.gradient is None, name
