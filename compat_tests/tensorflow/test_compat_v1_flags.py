"""tf.compat.v1.flags and tf.compat.v1.app over absl-py, against real TensorFlow 2.21.

Both libraries define their flags in absl's one global ``FLAGS``, so each defines its own names (``tf_...`` and
``vfw_...``) and every test leaves ``FLAGS`` unparsed.
"""

import sys

import pytest

from compat_tests.tensorflow.harness import real, vtf

pytest.importorskip("absl")
PREFIXES = {"tf": real, "vfw": vtf}


@pytest.fixture(scope="module")
def defined_flags():
    for prefix, lib in PREFIXES.items():
        flags = lib.compat.v1.flags
        flags.DEFINE_integer(flag_name=f"{prefix}_compat_steps", default_value=3, docstring="steps")  # TF 1 names
        flags.DEFINE_string(f"{prefix}_compat_name", "a", "a name")
        flags.DEFINE_float(f"{prefix}_compat_rate", 0.5, "a rate")
        flags.DEFINE_boolean(f"{prefix}_compat_flag", False, "a switch")
        flags.DEFINE_bool(f"{prefix}_compat_other", True, "another switch")
    yield
    real.compat.v1.flags.FLAGS.unparse_flags()


def _values(prefix):
    flags = PREFIXES[prefix].compat.v1.flags.FLAGS
    return [getattr(flags, f"{prefix}_compat_{name}") for name in ("steps", "name", "rate", "flag", "other")]


def test_public_names():
    def public(module):
        return {n for n in dir(module) if not n.startswith("_")}

    assert public(vtf.compat.v1.flags) == public(real.compat.v1.flags) - {"tf_decorator"}


def test_reading_a_flag_parses_sys_argv(defined_flags, monkeypatch):
    argv = ["prog"]
    for prefix in PREFIXES:
        argv += [f"--{prefix}_compat_steps=5", f"--{prefix}_compat_name=b", f"--{prefix}_compat_flag",
                 f"--no{prefix}_compat_other"]
    monkeypatch.setattr(sys, "argv", argv)
    got = {}
    for prefix, lib in PREFIXES.items():
        flags = lib.compat.v1.flags.FLAGS
        flags.unparse_flags()
        assert not flags.is_parsed()
        got[prefix] = _values(prefix)
        assert flags.is_parsed()
        assert flags[f"{prefix}_compat_steps"].value == 5
        assert f"{prefix}_compat_rate" in flags
        with pytest.raises(AttributeError):
            flags.no_such_compat_flag  # noqa: B018
        flags.unparse_flags()
    assert got["vfw"] == got["tf"] == [5, "b", 0.5, True, False]


def test_explicit_parse_and_assignment(defined_flags):
    got = {}
    for prefix, lib in PREFIXES.items():
        flags = lib.compat.v1.flags.FLAGS
        flags.unparse_flags()
        rest = flags(["prog", f"--{prefix}_compat_rate=0.25", "positional"])
        setattr(flags, f"{prefix}_compat_name", "set")
        got[prefix] = (rest, _values(prefix))
        flags.unparse_flags()
    assert got["vfw"] == got["tf"]


def test_app_run_tolerates_unknown_flags(defined_flags):
    got = {}
    for prefix, lib in PREFIXES.items():
        lib.compat.v1.flags.FLAGS.unparse_flags()
        seen = []
        with pytest.raises(SystemExit) as exit_info:
            lib.compat.v1.app.run(lambda argv: seen.append(argv) or 3,  # noqa: B023
                                  argv=["prog", f"--{prefix}_compat_steps=7", "--not_a_defined_flag", "pos"])
        got[prefix] = (seen, exit_info.value.code, _values(prefix))
        lib.compat.v1.flags.FLAGS.unparse_flags()
    assert got["vfw"] == got["tf"]
    assert got["vfw"][1] == 3
