"""tf.function against TF 2.21: results over several calls, retracing counts, input signatures, concrete
functions, Python side effects, variables, gradients through calls, errors, and tf.config."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, real, vtf

X, Y = arrays((2, 3), (3, 4))


def test_results_and_tracing_counts_follow_python_arguments_shapes_and_dtypes():
    def case(tf):
        traced = []

        @tf.function
        def f(x, n, scale=1.0):
            traced.append(n)  # Python side effects run while tracing only
            return x * n * scale

        out = [f(tf.constant(1.0), 2), f(tf.constant(2.0), 2), f(tf.constant(1.0), 3), f(tf.constant([1.0]), 3),
               f(tf.constant([1.0, 2.0]), 3), f(np.ones(2, np.float32), 3), f(np.ones(3, np.float32), 3),
               f(tf.constant(1.0), 2, scale=2.0), f(tf.constant(1.0), 2, 2.0), f(x=tf.constant(5.0), n=2),
               f(tf.constant(1.0, tf.float64), 2)]
        return out, f.experimental_get_tracing_count(), traced
    check(case)


def test_nested_arguments_and_results():
    def case(tf, x, y):
        @tf.function
        def f(pair, options):
            a, b = pair
            return {"sum": a + options["shift"], "parts": [a, (b, options["k"])], "none": None, "k": options["k"],
                    "text": "done", "flag": True}

        first = f((x, y), {"shift": 1.0, "k": 3})
        second = f((x * 2, y), {"shift": 1.0, "k": 3})
        return first, second, f([x, y], {"shift": 2.0, "k": 3}), f.experimental_get_tracing_count()
    check(case, X, Y)


@pytest.mark.parametrize("shapes", [[(2, 2), (3, 2), (3, 3), (2, 2, 2), (5,)],
                                    [(2, 2), (2, 3), (4, 3), (2, 2, 2), (2, 2)], [(1,), (2,), (3,), (4,)]])
def test_reduce_retracing_generalizes_shapes(shapes):
    def case(tf):
        f = tf.function(lambda x: x + 1, reduce_retracing=True)
        counts = []
        for s in shapes:
            f(tf.ones(s))
            counts.append(f.experimental_get_tracing_count())
        f(tf.ones([2], tf.float64))
        return counts, f.experimental_get_tracing_count()
    check(case)


def test_input_signature_serves_every_matching_call_with_one_trace():
    def case(tf):
        traced = []

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.int32)])
        def f(x, n):
            traced.append(1)
            return tf.reduce_sum(x, axis=1) * tf.cast(n, tf.float32)

        out = [f(tf.ones([2, 3]), tf.constant(2)), f(tf.ones([5, 3]), tf.constant(3)),
               f(np.ones((1, 3), np.float32), 4), f([[1.0, 2.0, 3.0]], 1)]
        return out, f.experimental_get_tracing_count(), len(traced) >= 1, repr(f.input_signature)
    check(case)


@pytest.mark.parametrize("bad", [lambda tf: (tf.constant([[1, 2, 3]]),), lambda tf: (tf.ones([2, 4]),),
                                 lambda tf: (1.0,), lambda tf: (tf.ones([2, 3]), tf.ones([2, 3])),
                                 lambda tf: (tf.ones([3]),)])
def test_input_signature_refuses_other_arguments(bad):
    def case(tf):
        f = tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        return f(*bad(tf))
    check(case)


def test_tensor_spec():
    def case(tf):
        s = tf.TensorSpec([None, 3], tf.float32, name="x")
        return (repr(s), s.shape, s.dtype, s.name, s == tf.TensorSpec([None, 3], tf.float32, "x"),
                s == tf.TensorSpec([None, 3]), s.is_compatible_with(tf.ones([2, 3])),
                s.is_compatible_with(tf.TensorSpec([4, 3])), s.is_compatible_with(tf.ones([2, 3], tf.int32)),
                repr(tf.TensorSpec.from_tensor(tf.ones([2]))), repr(tf.TensorSpec(None)), repr(tf.TensorSpec(())),
                repr(tf.TensorSpec([2], "int32")), tf.TensorSpec([2, 3]).is_subtype_of(s),
                repr(tf.TensorSpec([2, 3]).most_specific_common_supertype([tf.TensorSpec([4, 3])])))
    check(case)
    check(lambda tf: tf.TensorSpec([2], "nope"))


def test_concrete_functions():
    def case(tf):
        f = tf.function(lambda x, n: x * n)
        cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32), 3)
        again = f.get_concrete_function(tf.TensorSpec([None], tf.float32), 3)
        return (cf(tf.constant([1.0, 2.0])), cf(tf.constant([4.0])), cf(tf.constant([4.0]), 3), again is cf,
                f.experimental_get_tracing_count(), repr(cf.structured_input_signature), cf.output_dtypes,
                cf.structured_outputs.shape, f(tf.constant([1.0]), 3), f.experimental_get_tracing_count())
    check(case)
    check(lambda tf: tf.function(lambda x: x).get_concrete_function(tf.TensorSpec([None], tf.float32))(
        tf.constant([1, 2])))
    check(lambda tf: tf.function(lambda x, n: x * n).get_concrete_function(tf.constant([1.0]), 3)(
        tf.constant([2.0]), 4))


def test_methods_trace_per_instance():
    def case(tf):
        class Scaler:
            def __init__(self, k):
                self.k = k

            @tf.function
            def __call__(self, x):
                return x * self.k

        a, b = Scaler(2.0), Scaler(3.0)
        out = [a(tf.constant(1.0)), a(tf.constant(2.0)), b(tf.constant(1.0)), a(tf.constant([1.0]))]
        return out, a.__call__.experimental_get_tracing_count(), b.__call__.experimental_get_tracing_count()
    check(case)


def test_variables_are_captured_and_updated_on_every_call():
    def case(tf):
        v = tf.Variable([1.0, 2.0])
        counter = tf.Variable(0)

        @tf.function
        def step(x):
            v.assign_add(x)
            counter.assign_add(1)
            return v.read_value() * 2.0

        out = [step(tf.constant([1.0, 1.0])), step(tf.constant([0.5, 0.0]))]
        v.assign([10.0, 10.0])  # read by reference: the next call sees it
        out.append(step(tf.constant([1.0, 1.0])))
        return out, v, counter, step.experimental_get_tracing_count()
    check(case)


def test_variables_as_arguments_and_results():
    def case(tf):
        v1, v2 = tf.Variable(1.0), tf.Variable(5.0)
        add = tf.function(lambda v, x: v.assign_add(x))
        read = tf.function(lambda: (v1, v1 * 2.0))
        out = [add(v1, tf.constant(2.0)), add(v2, tf.constant(2.0)), add(v1, tf.constant(1.0)), read()]
        return out, tf.identity(v1), tf.identity(v2), add.experimental_get_tracing_count()
    check(case)


def test_variables_created_on_the_first_trace_only():
    def case(tf):
        traced = []

        class Model:
            def __init__(self):
                self.w = None

            @tf.function
            def __call__(self, x):
                traced.append(1)
                if self.w is None:
                    self.w = tf.Variable(tf.ones_like(x) * 2.0)
                self.w.assign_add(x)
                return self.w * x

        m = Model()
        out = [m(tf.constant(1.0)), m(tf.constant(3.0))]
        return out, tf.identity(m.w), m.__call__.experimental_get_tracing_count(), len(traced)
    check(case)

    def every_call(tf):
        @tf.function
        def f(a):
            return tf.Variable(1.0) + a
        return f(tf.constant(1.0))
    check(every_call)


def test_gradient_tape_outside_a_function_call():
    def fn(tf, x, y):
        f = tf.function(lambda a, b: tf.reduce_sum(tf.matmul(a, b) ** 2) + a[0, 0] * b[0, 0])
        return f(x, y)
    check_grad(fn, X, Y, rtol=1e-4)

    def with_variable(tf):
        w = tf.Variable([[1.0, -2.0], [0.5, 3.0]])
        f = tf.function(lambda x: tf.reduce_sum(tf.matmul(x, w) ** 2))
        x = tf.constant([[1.0, 2.0]])
        f(x)  # traced: the next call runs the graph, or the Python code under a tape
        with tf.GradientTape() as tape:
            loss = f(x)
        return loss, tape.gradient(loss, w), f.experimental_get_tracing_count()
    check(with_variable)


def test_training_step_with_a_tape_inside_traces_into_one_graph():
    def case(tf):
        rng = np.random.default_rng(0)
        w1 = tf.Variable(rng.standard_normal((4, 8)).astype(np.float32) * 0.5)
        b1 = tf.Variable(np.zeros(8, np.float32))
        w2 = tf.Variable(rng.standard_normal((8, 3)).astype(np.float32) * 0.5)
        params = [w1, b1, w2]
        x = tf.constant(rng.standard_normal((5, 4)).astype(np.float32))
        labels = tf.one_hot(tf.constant([0, 2, 1, 1, 0]), 3)

        @tf.function
        def step(x, labels, lr):
            with tf.GradientTape() as tape:
                logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)
                loss = -tf.reduce_mean(tf.reduce_sum(labels * tf.nn.log_softmax(logits), axis=1))
            grads = tape.gradient(loss, params)
            for p, g in zip(params, grads):
                p.assign_sub(lr * g)
            return loss

        losses = [step(x, labels, 0.1) for _ in range(4)]
        return losses, params, step.experimental_get_tracing_count()
    check(case, rtol=1e-4, atol=1e-5)


def test_functions_calling_functions_are_inlined():
    def case(tf):
        inner = tf.function(lambda x: x * 2.0)
        outer = tf.function(lambda x: inner(x) + inner(x + 1.0))
        return (outer(tf.constant(1.0)), outer(tf.constant(2.0)), outer.experimental_get_tracing_count(),
                inner.experimental_get_tracing_count())
    check(case)


def test_run_functions_eagerly():
    def case(tf):
        calls = []

        @tf.function
        def f(x):
            calls.append(1)
            return x + 1

        tf.config.run_functions_eagerly(True)
        try:
            out = [f(tf.constant(1.0)), f(tf.constant(2.0)), tf.config.functions_run_eagerly()]
        finally:
            tf.config.run_functions_eagerly(False)
        return out, len(calls), f.experimental_get_tracing_count(), tf.config.functions_run_eagerly()
    check(case)


@pytest.mark.parametrize("body", [lambda tf, a, b: tf.matmul(a, b), lambda tf, a, b: a + b,
                                  lambda tf, a, b: tf.reshape(a, [4]), lambda tf, a, b: tf.gather(a, 5),
                                  lambda tf, a, b: a + tf.cast(b, tf.int32)[:, :3],
                                  lambda tf, a, b: tf.constant(1.0) + tf.constant([1, 2])])
def test_errors_while_tracing_and_running(body):
    check(lambda tf, a, b: tf.function(lambda a, b: body(tf, a, b))(a, b), X, X.T.copy())


def test_error_at_a_later_call_is_an_invalid_argument_error():
    def case(tf):
        f = tf.function(lambda x, i: tf.gather(x, i))
        f(tf.constant([1.0, 2.0]), tf.constant(1))
        return f(tf.constant([1.0, 2.0]), tf.constant(7))
    check(case)


def test_function_attributes():
    def case(tf):
        def square(x):
            return x * x
        f = tf.function(square)
        return (f.python_function is square, repr(f.input_signature), f.__name__, f(tf.constant(3.0)),
                tf.function(f).python_function is square, tf.function(jit_compile=True)(square)(tf.constant(2.0)))
    check(case)


def test_config():
    def case(tf):
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_visible_devices([cpu])
        tf.config.set_visible_devices([], "GPU")
        return (tf.config.list_physical_devices(), tf.config.list_physical_devices("GPU"),
                tf.config.list_physical_devices("cpu"), tf.config.list_logical_devices(),
                tf.config.get_visible_devices(), tf.config.get_visible_devices("CPU"), cpu.name, cpu.device_type,
                tf.config.get_soft_device_placement(), tf.config.experimental.get_device_details(cpu),
                tf.config.get_logical_device_configuration(cpu),
                tf.config.experimental.tensor_float_32_execution_enabled(),
                tf.config.optimizer.get_jit(), tf.config.functions_run_eagerly(),
                tf.config.LogicalDeviceConfiguration(memory_limit=10))
    check(case)
    check(lambda tf: tf.config.experimental.set_memory_growth(tf.config.list_physical_devices("CPU")[0], True))


def test_thread_counts_are_accepted_at_any_time():
    # TF refuses them once it has run an op (RuntimeError); vfw records them (numpy's BLAS has its own threads).
    threading = vtf.config.threading
    before = threading.get_intra_op_parallelism_threads(), threading.get_inter_op_parallelism_threads()
    try:
        vtf.config.threading.set_intra_op_parallelism_threads(3)
        vtf.config.threading.set_inter_op_parallelism_threads(2)
        assert vtf.config.threading.get_intra_op_parallelism_threads() == 3
        assert vtf.config.threading.get_inter_op_parallelism_threads() == 2
    finally:
        vtf.config.threading.set_intra_op_parallelism_threads(before[0])
        vtf.config.threading.set_inter_op_parallelism_threads(before[1])
    assert real.config.threading.get_intra_op_parallelism_threads() == before[0] == 0


def test_namespaces():
    for name in ["function", "TensorSpec", "print", "cond", "while_loop", "case", "switch_case"]:
        assert hasattr(vtf, name) and hasattr(real, name)
    for name in ["list_physical_devices", "run_functions_eagerly", "experimental", "threading", "optimizer"]:
        assert hasattr(vtf.config, name)
    assert callable(vtf.autograph.experimental.do_not_convert(lambda: 1))


@pytest.mark.parametrize("reads_first", ["z", "y"])
def test_variables_assigned_from_each_other_stay_apart_in_graphs(reads_first):
    # eager ``z.assign(y)`` and ``tf.Variable(y)`` leave the variables holding one array: a traced step must
    # still update each of its own state
    def case(tf):
        y = tf.Variable(np.ones(3, np.float32))
        z = tf.Variable(np.zeros(3, np.float32))
        z.assign(y.read_value())
        w = tf.Variable(y)

        @tf.function
        def step():
            if reads_first == "z":
                z.assign_sub(tf.fill([3], 0.1))
                y.assign((y - 0.1 * z) / 0.9)
            else:
                y.assign((y - 0.1 * z) / 0.9)
                z.assign_sub(tf.fill([3], 0.1))
            w.assign_add(tf.fill([3], 1.0))

        history = []
        for _ in range(3):
            step()
            history.append([v.numpy() for v in (y, z, w)])
        return history

    check(case)
