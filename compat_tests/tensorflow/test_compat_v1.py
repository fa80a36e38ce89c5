"""tf.compat.v1's TF 2-compatible part (aliases, logging, seeds, initializers, options) against real TF 2.21."""

import logging

import pytest

from compat_tests.tensorflow.harness import check, real, vtf
from vfw.frontends.tensorflow.compat.v1._shared_names import SHARED_WITH_V2


def _namespace(tf, path):
    module = tf
    for part in filter(None, path.split(".")):
        module = getattr(module, part)
    return module


@pytest.mark.parametrize("namespace", sorted(SHARED_WITH_V2))
def test_shared_names_are_the_tf2_objects(namespace):
    real_v1, real_v2 = _namespace(real.compat.v1, namespace), _namespace(real, namespace)
    vfw_v1, vfw_v2 = _namespace(vtf.compat.v1, namespace), _namespace(vtf, namespace)
    provided = 0
    for name in SHARED_WITH_V2[namespace]:
        assert getattr(real_v1, name) is getattr(real_v2, name), name  # the table still describes TF
        if hasattr(vfw_v2, name):
            assert getattr(vfw_v1, name) is getattr(vfw_v2, name), name
            provided += 1
        else:
            with pytest.raises(AttributeError, match="does not provide it yet"):
                getattr(vfw_v1, name)
    assert provided > 0


@pytest.mark.parametrize("namespace", ["", "nn", "math", "data", "train", "image", "random", "linalg"])
def test_no_invented_names(namespace):
    """Everything vfw's tf.compat.v1 namespace lists exists in TF's under the same name."""
    real_names = set(dir(_namespace(real.compat.v1, namespace)))
    assert {n for n in dir(_namespace(vtf.compat.v1, namespace)) if not n.startswith("_")} <= real_names


@pytest.mark.parametrize("path", ["nn.dropout", "Variable", "data.Dataset", "train.Checkpoint", "multinomial",
                                  "global_variables_initializer", "no_such_name", "math.to_float"])
def test_tf1_names_are_not_given_tf2_behaviour(path):
    """Names whose TF 1 objects differ from TF 2's raise vfw's "does not provide" error."""
    namespace, _, name = path.rpartition(".")
    module = _namespace(vtf.compat.v1, namespace)
    with pytest.raises(AttributeError, match=rf"has no attribute '{name}' \(vfw.tensorflow.compat.v1"
                                             rf"{'.' + namespace if namespace else ''} does not provide it yet\)"):
        getattr(module, name)


def test_keras_and_compat():
    assert vtf.compat.v1.keras.layers.Dense is vtf.keras.layers.Dense
    assert real.compat.v1.keras.layers.Dense is real.keras.layers.Dense
    assert vtf.compat.v1.compat.as_bytes is vtf.compat.as_bytes
    assert vtf.compat.v1.dimension_value is vtf.compat.dimension_value


@pytest.fixture
def tensorflow_logger():
    """The "tensorflow" logger with a record-collecting handler; its level restored afterwards."""
    logger = logging.getLogger("tensorflow")
    level = logger.level
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)
    logger.setLevel(level)


def test_logging_constants_and_verbosity(tensorflow_logger):
    for name in ("DEBUG", "INFO", "WARN", "ERROR", "FATAL"):
        assert getattr(vtf.compat.v1.logging, name) == getattr(real.compat.v1.logging, name)
    for level in ("ERROR", "DEBUG", "WARN"):
        got = []
        for lib in (real, vtf):
            lib.compat.v1.logging.set_verbosity(getattr(lib.compat.v1.logging, level))
            got.append((lib.compat.v1.logging.get_verbosity(), logging.getLogger("tensorflow").level))
        assert got[0] == got[1]


def test_logging_messages(tensorflow_logger):
    def emit(lib):
        log = lib.compat.v1.logging
        log.set_verbosity(log.INFO)
        tensorflow_logger.clear()
        log.info("i %d", 1)
        log.debug("hidden")
        log.warn("w %s", "x")
        log.warning("w2")
        log.error("e")
        log.fatal("f")
        log.log(log.WARN, "l %d", 2)
        log.vlog(log.ERROR, "v")
        log.log_if(log.INFO, "if %d", True, 3)
        log.log_if(log.INFO, "not", False)
        log.TaskLevelStatusMessage("status")
        for i in range(7):
            log.log_every_n(log.INFO, "every %d", 3, i)
            log.log_first_n(log.INFO, "first %d", 2, i)
        return [(r.levelno, r.getMessage()) for r in tensorflow_logger]

    assert emit(vtf) == emit(real)
    for lib in (real, vtf):
        with pytest.raises(NotImplementedError):
            lib.compat.v1.logging.flush()


@pytest.mark.parametrize("op", ["uniform", "normal"])
def test_set_random_seed(op):
    check(lambda tf: (tf.compat.v1.set_random_seed(7), getattr(tf.random, op)([5]),
                      getattr(tf.random, op)([2], seed=3))[1:])


def test_eager_switches():
    for lib in (real, vtf):
        v1 = lib.compat.v1
        assert v1.enable_eager_execution() is None
        assert v1.enable_v2_behavior() is None
        assert v1.executing_eagerly() is True
        assert v1.executing_eagerly_outside_functions() is True
        assert not bool(lib.function(v1.executing_eagerly)())


@pytest.mark.parametrize("call", ["disable_eager_execution()", "disable_v2_behavior()", "Session()",
                                  "Session(config=v1.ConfigProto())", "InteractiveSession()",
                                  "placeholder(tf.float32, [None, 3])", "get_variable('w', [2])",
                                  "variable_scope('s')", "train.AdamOptimizer(0.1)",
                                  "train.GradientDescentOptimizer(0.1)"])
def test_graph_mode_entry_points_are_clear_errors(call):
    # Not run in real TF: these would switch the test process to graph mode or need it.
    v1 = vtf.compat.v1
    with pytest.raises(NotImplementedError, match="vfw"):
        eval("v1." + call, {"v1": v1, "tf": vtf})


def test_disable_v2_behavior_names_what_tf_changes():
    with pytest.raises(NotImplementedError, match="Dimension.*resource.*control flow.*==.*Datasets"):
        vtf.compat.v1.disable_v2_behavior()


CONFIGS = [
    "v1.ConfigProto()",
    "v1.ConfigProto(gpu_options=v1.GPUOptions(allow_growth=True))",
    "v1.ConfigProto(allow_soft_placement=True, log_device_placement=False, device_count={'GPU': 0})",
    "v1.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=4, device_filters=['a', 'b'])",
    "v1.ConfigProto(gpu_options=v1.GPUOptions(per_process_gpu_memory_fraction=0.4, visible_device_list='0'))",
    "v1.ConfigProto(gpu_options=None, operation_timeout_in_ms=5)",
    "v1.ConfigProto(no_such_field=1)",
    "v1.ConfigProto(gpu_options=3)",
    "v1.ConfigProto(allow_soft_placement='yes')",
    "v1.GPUOptions(per_process_gpu_memory_fraction='half')",
    "v1.ConfigProto(intra_op_parallelism_threads=1.5)",
]


@pytest.mark.parametrize("make", CONFIGS)
def test_config_proto(make):
    check(lambda tf: str(eval(make, {"v1": tf.compat.v1})))


def test_config_proto_fields():
    def build(tf):
        config = tf.compat.v1.ConfigProto()
        out = [config.gpu_options.allow_growth, config.allow_soft_placement, str(config)]
        config.gpu_options.allow_growth = True
        config.gpu_options.per_process_gpu_memory_fraction = 0.25
        config.allow_soft_placement = True
        out += [str(config), config == tf.compat.v1.ConfigProto(), config == config]
        return out

    check(build)
    for statement in ("c.gpu_options = v1.GPUOptions()", "c.no_such_field = 1"):
        for lib in (real, vtf):
            with pytest.raises(AttributeError):
                exec(statement, {"c": lib.compat.v1.ConfigProto(), "v1": lib.compat.v1})


INITIALIZERS = [
    "random_normal_initializer(1.0, 2.0, seed=3)", "random_uniform_initializer(-1.0, 2.0, seed=4)",
    "random_uniform_initializer(seed=5)", "truncated_normal_initializer(0.5, 0.1, seed=6)",
    "glorot_uniform_initializer(seed=7)", "glorot_normal_initializer(seed=8)",
    "variance_scaling_initializer(2.0, 'fan_out', 'untruncated_normal', seed=9)",
    "variance_scaling_initializer(0.5, 'fan_in', 'uniform', seed=10)",
    "variance_scaling_initializer(seed=11, dtype=tf.float64)", "random_normal_initializer(seed=12, dtype=tf.float16)",
]


@pytest.mark.parametrize("make", INITIALIZERS)
@pytest.mark.parametrize("shape", [[3, 4], [2, 3, 4, 5], [6], []])
def test_initializers(make, shape):
    def draw(tf):
        tf.random.set_seed(1)
        initializer = eval(make, {"tf": tf})
        return initializer(shape), initializer(shape, dtype=tf.float64), initializer.get_config()

    check(draw)


@pytest.mark.parametrize("make", ["random_normal_initializer(dtype=tf.int32)",
                                  "glorot_uniform_initializer(dtype='int64')",
                                  "variance_scaling_initializer(scale=-1.0)", "variance_scaling_initializer(mode='x')",
                                  "variance_scaling_initializer(distribution='x')"])
def test_initializer_errors(make):
    check(lambda tf: eval(make, {"tf": tf}))
