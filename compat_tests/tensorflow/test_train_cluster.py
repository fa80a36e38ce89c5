"""tf.train.ClusterSpec and tf.train.Coordinator against real TF (Python threads; short waits only)."""

import threading
import time

import pytest

from compat_tests.tensorflow.harness import check

_CLUSTER = {"worker": ["w0:2222", "w1:2222"], "ps": ["p0:2222"], "chief": {3: "c3:1"}}


def test_cluster_spec():
    def fn(tf):
        spec = tf.train.ClusterSpec(_CLUSTER)
        copy = tf.train.ClusterSpec(spec)
        return (repr(spec), str(spec), spec.as_dict(), spec.jobs, spec.num_tasks("worker"), spec.task_indices("chief"),
                spec.task_address("worker", 1), spec.job_tasks("chief"), bool(spec), bool(tf.train.ClusterSpec({})),
                spec == copy, spec != tf.train.ClusterSpec({}), list(copy.as_dict()), copy.jobs,
                tf.train.ClusterSpec({"a": {0: "x", 2: "y"}}).as_dict(),
                tf.train.ClusterSpec({"a": ("x:1", "y:2")}).as_dict())

    check(fn)


@pytest.mark.parametrize("case", ["num_tasks", "task_address_index", "task_address_job", "not_dict", "tasks_str",
                                  "address_int", "job_tasks", "task_indices"])
def test_cluster_spec_errors(case):
    def fn(tf):
        spec = tf.train.ClusterSpec(_CLUSTER)
        calls = {"num_tasks": lambda: spec.num_tasks("x"), "task_address_index": lambda: spec.task_address("worker", 5),
                 "task_address_job": lambda: spec.task_address("x", 0), "not_dict": lambda: tf.train.ClusterSpec(5),
                 "tasks_str": lambda: tf.train.ClusterSpec({"a": "b"}),
                 "address_int": lambda: tf.train.ClusterSpec({"a": [1]}), "job_tasks": lambda: spec.job_tasks("x"),
                 "task_indices": lambda: spec.task_indices("x")}
        return calls[case]()

    check(fn)


def _worker(coord, out, limit, error):
    with coord.stop_on_exception():
        while not coord.should_stop():
            out.append(1)
            if len(out) > limit:
                raise error
            time.sleep(0.001)


def test_coordinator_reports_first_exception():
    def fn(tf):
        coord = tf.train.Coordinator()
        before = (coord.should_stop(), coord.joined, coord.wait_for_stop(0.001))
        out = []
        threads = [threading.Thread(target=_worker, args=(coord, out, 5, ValueError("boom"))) for _ in range(2)]
        for t in threads:
            t.start()
        try:
            coord.join(threads)
            raised = None
        except ValueError as e:
            raised = str(e)
        after = (coord.should_stop(), coord.joined)
        coord.clear_stop()
        return before, raised, after, (coord.should_stop(), coord.joined), coord.raise_requested_exception()

    check(fn)


def test_coordinator_clean_stops():
    def fn(tf):
        coord = tf.train.Coordinator()
        with coord.stop_on_exception():
            raise tf.errors.OutOfRangeError(None, None, "end of input")
        stopped = coord.should_stop()
        coord.join()
        custom = tf.train.Coordinator(clean_stop_exception_types=(KeyError,))
        try:
            raise KeyError("k")
        except KeyError as e:
            custom.request_stop(e)
        custom.join()
        return stopped, coord.joined, custom.joined, custom.raise_requested_exception()

    check(fn)


@pytest.mark.parametrize("case", ["stragglers", "ignored", "registered", "after_join", "first_of_two"])
def test_coordinator_join_cases(case):
    def fn(tf):
        coord = tf.train.Coordinator()
        sleeper = threading.Thread(target=time.sleep, args=(0.2,), name="sleeper")
        sleeper.start()
        try:
            if case == "first_of_two":
                for error in (ValueError("a"), TypeError("b")):
                    try:
                        raise error
                    except Exception as e:
                        coord.request_stop(e)
                coord.raise_requested_exception()
            coord.request_stop()
            if case == "registered":
                coord.register_thread(sleeper)
            coord.join([] if case == "registered" else [sleeper], stop_grace_period_secs=0.01,
                       ignore_live_threads=case in ("ignored", "after_join"))
            if case == "after_join":
                try:
                    raise ValueError("late")
                except ValueError as e:
                    coord.request_stop(e)
            return coord.joined
        finally:
            sleeper.join()

    check(fn)
