"""tf.Module and tf.name_scope against real TF 2.21: names, name scopes, and the order in which variables and
submodules are found."""

import pytest

from compat_tests.tensorflow.harness import check, real, vtf

LIBS = (real, vtf)


def both(fn):
    """``fn(tf)`` in real TF and in vfw (exceptions as ``(type name, message)``); asserts they agree."""
    results = []
    for lib in LIBS:
        try:
            results.append(fn(lib))
        except Exception as e:  # noqa: BLE001  (the exception is the result compared)
            results.append((type(e).__name__, str(e)))
    assert results[1] == results[0]
    return results[0]


def names(items):
    return [x.name for x in items]


def model(tf):
    """A module tree with variables in attributes, lists, tuples, dicts, nested modules and a private attribute."""
    class Dense(tf.Module):
        def __init__(self, n, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.ones((2, n)), name="w")
            self.b = tf.Variable(tf.zeros((n,)), name="b", trainable=False)

        @tf.Module.with_name_scope
        def __call__(self, x):
            return tf.Variable(1.0, name="made_in_call").name, tf.matmul(x, self.w) + self.b

    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.z = Dense(3, name="zz")
            self.a = [Dense(2), {"k2": Dense(1, name="k2"), "k1": tf.Variable(5.0, name="k1")}]
            self.c = (tf.Variable(1.0, name="c"),)
            self._priv = tf.Variable(2.0, name="priv")
            self.b_mod = Dense(4, name="b_mod")
            self.shared = self.c[0]
            self.text = "not a leaf of interest"
            self.none = None

    return Model()


def test_variables_submodules_and_their_order():
    def case(tf):
        m = model(tf)
        return (m.name, names(m.variables), names(m.trainable_variables), names(m.non_trainable_variables),
                names(m.submodules), type(m.variables).__name__, type(m.submodules).__name__)
    both(case)


def test_depth_first_order_and_cycles():
    def case(tf):
        class Node(tf.Module):
            pass

        def node(name, **children):
            m = Node(name=name)
            for k, v in children.items():
                setattr(m, k, v)
            return m
        top = node("top", a=node("A", x=node("A1", y=node("A2"))), b=node("B", x=node("B1")))
        shared = tf.Variable(1.0, name="shared")
        top2 = node("top2", a=node("A", v=shared), b=node("B", v=shared), c=shared)
        c1 = node("c1")
        c2 = node("c2", p=c1)
        c1.q = c2
        return names(top.submodules), names(top2.variables), names(c1.submodules), names(c2.submodules)
    both(case)


def test_flatten_options():
    def case(tf):
        m = model(tf)
        with_path = [(path, v.name) for path, v in m._flatten(predicate=lambda v: isinstance(v, tf.Variable),
                                                               with_path=True)]
        shallow = names(m._flatten(recursive=False, predicate=lambda v: isinstance(v, tf.Variable)))
        reverse = names(m._flatten(predicate=lambda v: isinstance(v, tf.Variable),
                                   attribute_traversal_key=lambda name: [-ord(c) for c in name]))
        texts = [x for x in m._flatten(recursive=False) if isinstance(x, str)]  # ``_name`` and ``text``
        return with_path, shallow, reverse, texts
    both(case)


@pytest.mark.parametrize("class_name", ["MyModule", "HTTPServer", "M", "ABCDef", "dense2D", "Foo_Bar", "_Hidden",
                                        "Module"])
def test_default_names(class_name):
    both(lambda tf: type(class_name, (tf.Module,), {})().name)


@pytest.mark.parametrize("name", ["x", "a_b", "_x", "a b", "1a", "a/b", "", 3])
def test_explicit_names(name):
    both(lambda tf: tf.Module(name=name).name)


def test_name_scopes():
    def case(tf):
        out = [tf.Module(name="mm").name_scope.name, tf.Module().name_scope.name]
        with tf.name_scope("outer"):
            inner = tf.Module(name="inner")
            out += [inner.name_scope.name, tf.Variable(1.0, name="v").name]
            with inner.name_scope as scope:
                out += [scope, tf.Variable(1.0, name="v").name]
        with inner.name_scope as scope:
            out += [scope, tf.Variable(1.0, name="v").name]
        m = model(tf)
        out += [m.z.w.name, m.z(tf.ones((1, 2)))[0], tf.Variable(1.0, name="after").name]
        return out
    both(case)


def test_with_name_scope_on_methods():
    def case(tf):
        class N(tf.Module):
            @tf.Module.with_name_scope
            def scoped(self, suffix=""):
                return tf.Variable(1.0, name="q" + suffix).name

            def plain(self):
                return tf.Variable(1.0, name="q").name
        n = N(name="nn")
        return n.scoped(), n.scoped(suffix="2"), n.plain(), N.scoped.__name__
    both(case)


def test_module_call_values():
    def case(tf):
        return model(tf).z(tf.ones((1, 2)))[1].numpy().tolist()
    both(case)


def test_unsortable_dict_keys_in_attributes():
    def case(tf):
        m = tf.Module()
        m.d = {1: tf.Variable(1.0), "a": tf.Variable(2.0)}
        return m.variables
    check(case)
