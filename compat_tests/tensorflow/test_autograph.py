"""AutoGraph against TF 2.21: Python ``if``/``while``/``for``, boolean operators and conditional expressions on
tensors inside tf.function, traced once and called with other values (a frozen branch or loop count would show)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad, real, vtf

F = np.float32


def calls(tf, fn, *argument_lists, **options):
    """``tf.function(fn)`` called on each argument list (numpy arrays as constants), and its tracing count."""
    f = tf.function(fn, **options)
    out = [f(*[tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]) for args in argument_lists]
    return out, f.experimental_get_tracing_count()


# -- if ----------------------------------------------------------------------------------------------
def test_if_else_assigning_variables():
    def fn(x):
        if tf_.reduce_sum(x) > 0:
            y = x * 2
            z = 1.0
        else:
            y = -x
            z = 2.0
        return y, z

    check(both(lambda tf: calls(tf, fn, [np.array([1, 2], F)], [np.array([-1, -2], F)], [np.array([3, -1], F)])))


def _bind(tf):
    """The module-level ``tf_`` the cases below use (each case runs in both libraries)."""
    global tf_
    tf_ = tf


def both(case):
    """Run ``case(tf)`` with ``tf_`` bound to each library in turn, comparing (as ``check``)."""
    def run(tf, *args):
        _bind(tf)
        return case(tf, *args)
    return run


tf_ = None


def test_if_without_else_and_elif_chain():
    def fn(x, n):
        y = x
        if n > 2:
            y = x * 3.0
        elif n > 0:
            y = x + 1.0
        if tf_.reduce_all(x > 0):
            y = y * 10.0
        return y

    check(both(lambda tf: calls(tf, fn, [np.array([1, 2], F), np.array(3)], [np.array([1, -2], F), np.array(1)],
                                [np.array([1, 2], F), np.array(-4)])))


def test_return_in_branches():
    def fn(x):
        if x > 0:
            return x * 2.0
        if x < -5:
            return x
        y = -x
        return y + 1.0

    check(both(lambda tf: calls(tf, fn, [np.array(2.0, F)], [np.array(-9.0, F)], [np.array(-1.0, F)])))


def test_nested_function_calls_are_converted():
    def sign(x):
        if x >= 0:
            return 1.0
        return -1.0

    def fn(x):
        return sign(x) * x, sign(-x)

    check(both(lambda tf: calls(tf, fn, [np.array(2.0, F)], [np.array(-3.0, F)])))


def test_boolean_operators_and_conditional_expression():
    def fn(x, y):
        a = x > 0 and y > 0
        b = x > 0 or y > 0
        c = not x > 0
        d = x if x > y else y
        if a or not b:
            d = d + 100.0
        return a, b, c, d

    args = [[np.array(v, F), np.array(w, F)] for v, w in ((1, 2), (-1, 2), (-1, -2), (3, -1))]
    check(both(lambda tf: calls(tf, fn, *args)))


def test_python_conditions_still_unroll():
    def fn(x, mode):
        if mode == "double":
            return x * 2.0
        out = x
        for k in range(3):
            out = out + float(k)
        return out

    check(both(lambda tf: calls(tf, fn, [np.array(1.0, F), "double"], [np.array(1.0, F), "add"],
                                [np.array(2.0, F), "double"])))


# -- loops -------------------------------------------------------------------------------------------
def test_while_on_tensor():
    def fn(x):
        steps = 0
        while tf_.norm(x) > 1.0:
            x = x / 2.0
            steps += 1
        return x, steps

    check(both(lambda tf: calls(tf, fn, [np.array([3, 4], F)], [np.array([30, 40], F)], [np.array([0.1, 0], F)])))


def test_for_over_range_and_tensor():
    def fn(n, x):
        s = 0
        for i in tf_.range(n):
            s += i
        t = tf_.constant(0.0)
        for row in x:
            t += tf_.reduce_sum(row)
        return s, t

    check(both(lambda tf: calls(tf, fn, [np.array(5), np.ones((2, 3), F)], [np.array(10), np.ones((2, 3), F) * 2],
                                [np.array(0), np.ones((4, 3), F)])))


def test_break_continue_and_loop_else():
    def fn(x):
        s = tf_.constant(0.0)
        for v in x:
            if v < 0:
                break
            if v > 10:
                continue
            s += v
        n = tf_.constant(0)
        while n < 100:
            n += 7
            if n % 5 == 0:
                break
        return s, n

    check(both(lambda tf: calls(tf, fn, [np.array([1, 2, -1, 5], F)], [np.array([1, 20, 1, 5], F)])))


def test_loop_else_is_left_unconverted_as_tf():
    def fn(x):
        while x < 10:
            x += 3.0
        else:
            x = -x
        return x

    check(both(lambda tf: calls(tf, fn, [np.array(1.0, F)])))


def test_python_loop_with_tensor_break():
    def fn(x):
        s = tf_.constant(0.0)
        for k in range(4):
            if x[k] < 0:
                break
            s += x[k]
        return s

    check(both(lambda tf: calls(tf, fn, [np.array([1, 2, -1, 5], F)], [np.array([1, 2, 3, 5], F)],
                                [np.array([-1, 2, 3, 5], F)])))


def test_return_in_python_loop():
    def fn(x, limits):
        for k, limit in enumerate(limits):
            if limit > 2:
                return x * float(k)
        return x

    check(both(lambda tf: calls(tf, fn, [np.array(1.5, F), (1, 3)], [np.array(1.5, F), (1, 1)])))


def test_variable_used_after_loop_defined_inside():
    def fn(x):
        while x > 0:
            y = x
            x = x - 1.0
        return y

    check(both(lambda tf: calls(tf, fn, [np.array(3.0, F)], [np.array(5.5, F)])))


def test_shape_invariants_with_set_loop_options():
    def fn(x):
        while tf_.reduce_sum(x) < 10:
            tf_.autograph.experimental.set_loop_options(shape_invariants=[(x, tf_.TensorShape([None]))])
            x = tf_.concat([x, x], 0)
        return x

    check(both(lambda tf: calls(tf, fn, [np.array([1.0], F)], [np.array([3.0], F)])))


def test_variables_and_tf_print_in_loops(capfd):
    def fn(x, v):
        for i in tf_.range(3):
            v.assign_add(tf_.cast(i, tf_.float32) * x)
        return v.read_value()

    def case(tf):
        v = tf.Variable(0.0)
        return calls(tf, fn, [np.array(1.0, F), v], [np.array(2.0, F), v])
    check(both(case))


def test_dataset_iteration():
    def fn(ds):
        s = tf_.constant(0, tf_.int64)
        for e in ds:
            s += e
        return s

    def case(tf):
        return calls(tf, fn, [tf.data.Dataset.range(4)], [tf.data.Dataset.range(6)])
    check(both(case))


# -- methods, closures, globals, decorators -------------------------------------------------------------
SCALE = 3.0


def test_methods_closures_globals_and_stacked_decorators():
    def twice(f):
        def wrapper(*args):
            return f(*args) * 2.0
        return wrapper

    def case(tf):
        offset = tf.constant(1.0)

        class Model(tf.Module):
            def __init__(self):
                super().__init__()
                self.w = tf.Variable(2.0)

            @tf.function
            def __call__(self, x):
                if x > 0:
                    y = x * self.w * SCALE
                else:
                    y = x + offset
                return y

        @tf.function
        @twice
        def g(x):
            if x > 0:
                return x
            return -x

        m = Model()
        return [m(tf.constant(1.0)), m(tf.constant(-2.0)), g(tf.constant(3.0)), g(tf.constant(-4.0))]
    check(both(case))


# -- gradients ---------------------------------------------------------------------------------------
def test_gradients_through_converted_cond_and_while():
    def case(tf, x):
        @tf.function
        def f(x):
            if tf.reduce_sum(x) > 0:
                y = x * x
            else:
                y = tf.sin(x)
            i = 0
            while i < 3:
                y = y * 1.5 + x
                i += 1
            return y
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return y, tape.gradient(tf.reduce_sum(y), x)

    check(case, np.array([1.0, -0.5], F))
    check(case, np.array([-1.0, -0.5], F))
    check_grad(lambda tf, x: tf.function(lambda v: _grad_case(tf, v))(x), np.array([0.5, 1.5], F))


def _grad_case(tf, x):
    return tf.while_loop(lambda y: tf.reduce_sum(y) < 20.0, lambda y: (y * 2.0,), [x])[0]


def test_gradient_tape_inside_function_through_converted_loop():
    def fn(x):
        with tf_.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in tf_.range(3):
                if tf_.reduce_sum(y) > 2:
                    y = y * x
                else:
                    y = y + x
        return y, tape.gradient(y, x)

    check(both(lambda tf: calls(tf, fn, [np.array(1.5, F)], [np.array(0.5, F)])))


# -- builtins and errors -----------------------------------------------------------------------------
def test_builtins_len_range_int_float():
    def fn(x):
        s = 0.0
        for i in range(tf_.shape(x)[0]):
            s += x[i]
        return s, len(x), int(tf_.reduce_sum(x)), float(tf_.reduce_max(x))

    check(both(lambda tf: calls(tf, fn, [np.array([1.5, 2], F)], [np.array([1, 2, 3.5], F)])))


@pytest.mark.parametrize("name", ["one_branch", "branch_dtypes", "return_one_branch", "loop_dtype", "loop_shape",
                                  "float_condition", "return_in_tensor_loop", "list_append_in_tensor_loop",
                                  "escaping_while_body", "escaping_cond_branch"])
def test_errors(name):
    def one_branch(x):
        if x > 0:
            y = x
        return y

    def branch_dtypes(x):
        if x > 0:
            y = 1
        else:
            y = 2.0
        return y

    def return_one_branch(x):
        if x > 0:
            return x

    def loop_dtype(x):
        i = tf_.constant(0)
        while i < 3:
            i = tf_.cast(i, tf_.float32) + 1.0
        return i

    def loop_shape(x):
        while tf_.reduce_sum(x) < 10:
            x = tf_.concat([x, x], 0)
        return x

    def float_condition(x):
        if x:
            return 1.0
        return 2.0

    def return_in_tensor_loop(x):
        for i in tf_.range(3):
            if i > 1:
                return x
        return -x

    def list_append_in_tensor_loop(x):
        values = []
        for i in tf_.range(3):
            values.append(x * tf_.cast(i, tf_.float32))  # a tensor of the loop body escapes it: TF refuses
        return values

    def escaping_while_body(x):
        kept = []

        def body(v):
            kept.append(v * 2.0)
            return (v + 1.0,)

        tf_.while_loop(lambda v: v < 3.0, body, (x,))
        return kept[0]

    def escaping_cond_branch(x):
        kept = []

        def branch():
            kept.append(x + 1.0)
            return x

        tf_.cond(x > 0, branch, lambda: x)
        return kept[0] * 2.0

    fn = locals()[name]
    check(both(lambda tf: calls(tf, fn, [np.array([1.0], F) if name == "loop_shape" else np.array(1.0, F)])))


def test_unused_variable_defined_in_one_branch_is_fine():
    def fn(x):
        if x > 0:
            tmp = x * 2.0
            x = tmp
        return x

    check(both(lambda tf: calls(tf, fn, [np.array(1.0, F)], [np.array(-1.0, F)])))


def test_autograph_false_and_do_not_convert_refuse_tensor_bools():
    def plain(x):
        if x > 0:
            return x
        return -x

    def case(tf):
        kept = tf.autograph.experimental.do_not_convert(plain)
        errors = []
        for f in (tf.function(plain, autograph=False), tf.function(lambda x: kept(x))):
            try:
                f(tf.constant(1.0))
            except TypeError as e:  # OperatorNotAllowedInGraphError
                errors.append(type(e).__name__)
        return errors
    check(case)


def test_to_graph_and_set_verbosity():
    def fn(x):
        if x > 0:
            return x * 2.0
        return x

    def case(tf):
        tf.autograph.set_verbosity(0)
        g = tf.autograph.to_graph(fn)
        return g(tf.constant(2.0)), g(tf.constant(-2.0)), tf.function(g)(tf.constant(-3.0)), callable(g)
    check(case)


@pytest.mark.parametrize("python_if", [False, True])
def test_keras_train_step_is_not_converted(python_if):
    """Keras compiles its own step function (library code): a user's train_step runs unconverted, as in Keras 3."""
    def case(tf):
        keras = tf.keras

        class Net(keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = keras.layers.Dense(1, kernel_initializer="ones")

            def call(self, x):
                return self.dense(x)

            def train_step(self, data):
                x, _ = data
                if python_if:
                    scale = 1.0 if tf.reduce_sum(x) > 0 else 2.0
                else:
                    scale = tf.where(tf.reduce_sum(x) > 0, 1.0, 2.0)
                return {"scale": scale}

        net = Net()
        net.compile(optimizer="sgd", loss="mse")
        history = net.fit(np.ones((4, 2), F), np.ones((4, 1), F), batch_size=4, epochs=1, verbose=0)
        return float(history.history["scale"][0])
    check(case)


def test_print_at_trace_time_and_tf_print_at_every_step(capfd):
    def fn(n):
        s = 0
        for i in tf_.range(n):
            print("traced", i.dtype)
            tf_.print("step", i, s)
            s += i
        return s

    printed = []
    for tf in (real, vtf):
        _bind(tf)
        f = tf.function(fn)
        results = [int(f(tf.constant(3))), int(f(tf.constant(2)))]
        out, err = capfd.readouterr()
        printed.append((results, out, err))
    assert printed[1] == printed[0]


def test_structures_shapes_and_python_values_in_branches_and_loops():
    def fn(x, n):
        for _ in range(n):  # a Python range unrolls
            x = x * 2.0
        y = x
        if x > 10:
            y = tf_.stack([x, x])  # branches may give other shapes
        z = [x, x * 2]
        if z[0] > 1:
            z = [z[1], z[0]]
        out = {"a": x}
        i = tf_.constant(0)
        while i < 3:
            tf_.autograph.experimental.set_loop_options(maximum_iterations=2)
            out = {"a": out["a"] + 1.0}
            i += 1
        return y, z, out, i

    check(both(lambda tf: calls(tf, fn, [np.array(1.0, F), 3], [np.array(30.0, F), 3], [np.array(-1.0, F), 3])))


def test_liveness_deleted_names_and_nested_functions():
    def fn(x):
        unused = 1
        if x > 0:
            del unused  # deleted in one branch, never read again
        total = x
        for i in tf_.range(3):
            step = tf_.cast(i, tf_.float32)  # assigned before it is read in every iteration: not a loop variable
            if step > 0:
                tmp = step * 2.0
                total += tmp

        def scaled(v):
            return v * 2.0 if v > 1 else v

        return scaled(total)

    check(both(lambda tf: calls(tf, fn, [np.array(1.0, F)], [np.array(-9.0, F)])))
