"""Write the snapshot of the real frameworks' public callables that ``python -m vfw coverage`` reads.

Run once per reference version, with the real frameworks installed (this script imports them; vfw itself
never does)::

    python -m compat_tests.coverage_snapshot            # both frameworks
    python -m compat_tests.coverage_snapshot torch

A namespace's names are its public attributes (no leading underscore) that are callable (functions, classes)
and not modules, leaving out what it merely re-exports from elsewhere (``typing.Optional`` in
``torch.nn.functional``, say).  A class namespace (``torch.Tensor``) lists its public methods.
"""

import importlib
import json
import pathlib
import sys
import types

from vfw._coverage.namespaces import NAMESPACES, resolve, snapshot_path


def _own_package(value, packages):
    """Whether ``value`` belongs to the framework (builtin methods and C functions carry no module: kept)."""
    module = getattr(value, "__module__", None)
    return not isinstance(module, str) or module.partition(".")[0] in packages


def _resolve_real(path):
    found = resolve(path)
    if found is None:
        raise ImportError(f"cannot import {path}")
    return found


def public_callables(namespace, packages):
    """Sorted public callable names of ``namespace`` (a module or class) defined by ``packages``."""
    names = []
    for name in dir(namespace):
        if name.startswith("_"):
            continue
        try:
            value = getattr(namespace, name)
        except Exception:  # noqa: BLE001 - a deprecated or broken attribute is no API to count
            continue
        if callable(value) and not isinstance(value, types.ModuleType) and _own_package(value, packages):
            names.append(name)
    return sorted(names)


def make_snapshot(framework):
    """The snapshot dictionary of ``framework`` (``"torch"`` or ``"tensorflow"``) as installed."""
    spec = NAMESPACES[framework]
    version = importlib.import_module(spec["module"]).__version__
    namespaces = {}
    for public_name, real_path in spec["namespaces"].items():
        namespaces[public_name] = public_callables(_resolve_real(real_path), spec["packages"])
    return {"framework": framework, "version": version, "namespaces": namespaces}


def main(frameworks):
    for framework in frameworks or sorted(NAMESPACES):
        snapshot = make_snapshot(framework)
        path = snapshot_path(framework)
        if path.name != f"snapshot_{framework}_{snapshot['version'].rsplit('.', 1)[0]}.json":
            sys.exit(f"installed {framework} {snapshot['version']} is not the reference version of {path.name}")
        path.write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n")
        total = sum(len(names) for names in snapshot["namespaces"].values())
        print(f"{pathlib.Path(path).name}: {total} names in {len(snapshot['namespaces'])} namespaces")


if __name__ == "__main__":
    main(sys.argv[1:])
