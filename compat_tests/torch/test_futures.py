"""torch.futures (Future, then, add_done_callback, wait_all, collect_all) against real torch 2.13's CPU futures."""

import threading

import pytest
import vfw.torch as vtorch

torch = pytest.importorskip("torch")


def _scenario(module):
    """Drive a module's futures through completion, chaining, failures and collection; record what happens."""
    Future = module.futures.Future  # noqa: N806
    seen = []
    first = Future()
    seen.append(first.done())
    chained = first.then(lambda fut: fut.wait() + 1)
    first.add_done_callback(lambda fut: seen.append(("callback", fut.value())))
    first.set_result(5)
    seen += [first.done(), first.wait(), first.value(), chained.wait()]
    with pytest.raises(RuntimeError) as again:
        first.set_result(6)
    seen.append(str(again.value))
    failed = Future()
    failed.set_exception(ValueError("bad"))
    for read in (failed.wait, failed.value):
        with pytest.raises(ValueError, match="bad"):
            read()
    with pytest.raises(RuntimeError) as from_callback:
        first.then(lambda fut: 1 / 0).wait()
    seen.append(str(from_callback.value).splitlines()[0])
    with pytest.raises(AssertionError) as not_exception:
        Future().set_exception("x")
    seen.append(str(not_exception.value))
    a, b = Future(), Future()
    collected = module.futures.collect_all([a, b])
    seen.append(collected.done())
    a.set_result(1)
    threading.Thread(target=b.set_result, args=(module.ones(2),)).start()  # completed from another thread
    values = [f.wait() for f in collected.wait()]
    seen += [values[0], values[1].tolist(), [v if isinstance(v, int) else v.tolist()
                                             for v in module.futures.wait_all([a, b])]]
    with pytest.raises(ValueError, match="bad"):
        module.futures.wait_all([a, failed])
    return seen


def test_futures_behave_as_torch():
    assert _scenario(vtorch) == _scenario(torch)


def test_failing_done_callback_is_reported_not_raised(capfd):
    future = vtorch.futures.Future()
    future.add_done_callback(lambda fut: 1 / 0)
    future.set_result(1)
    assert future.wait() == 1
    assert "ZeroDivisionError: division by zero" in capfd.readouterr().err


def test_value_before_completion_raises_runtime_error():
    with pytest.raises(RuntimeError):
        torch.futures.Future().value()
    with pytest.raises(RuntimeError, match="not completed"):
        vtorch.futures.Future().value()
