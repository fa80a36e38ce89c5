"""``torch.ops``: operator namespaces (``torch.ops.mylib.myop``) holding the operators ``torch.library`` defines."""

import types

_REGISTRY = {}


class OpOverloadPacket:
    """``torch.ops.<ns>.<name>``: calls the operator; ``.default`` is the same operator."""

    def __init__(self, namespace, name, op):
        self._qualified_op_name = f"{namespace}::{name}"
        self._namespace, self._name, self._op = namespace, name, op

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._namespace}.{self._name}')>"

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    @property
    def default(self):
        return self

    def overloads(self):
        return ["default"]


class _OpNamespace(types.ModuleType):
    def __init__(self, name):
        super().__init__(f"torch.ops.{name}")
        self.name = name

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        if (self.name, op_name) not in _REGISTRY:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        return OpOverloadPacket(self.name, op_name, _REGISTRY[self.name, op_name])


class _Ops(types.ModuleType):
    def __init__(self):
        super().__init__("torch.ops")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _OpNamespace(name)


ops = _Ops()


def register(namespace, name, op):
    """Make ``op`` reachable as ``torch.ops.<namespace>.<name>``."""
    _REGISTRY[namespace, name] = op


def lookup(namespace, name):
    """The operator registered as ``namespace::name`` (RuntimeError when there is none)."""
    if (namespace, name) not in _REGISTRY:
        raise RuntimeError(f"operator {namespace}::{name} does not exist")
    return _REGISTRY[namespace, name]
