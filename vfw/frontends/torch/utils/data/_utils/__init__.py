"""Internals of torch.utils.data: collation, fetching samples, and the worker processes.

``python_exit_status`` turns True when the interpreter starts shutting down: from then
on DataLoader iterators leave their (daemonic) worker processes to multiprocessing's own
exit handler instead of shutting them down themselves.
"""

import atexit

MP_STATUS_CHECK_INTERVAL = 5.0  # seconds a stopping worker is given to exit before it is terminated
# How often an idle worker checks that it should stop (the done event, a vanished parent). The
# done event matters when the stop request cannot come through the index queue: an iterator
# collected as garbage in a reference cycle may have had its queues finalized first.
WORKER_POLL_INTERVAL = 0.1
python_exit_status = False


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)

from vfw.frontends.torch.utils.data._utils import collate, fetch, worker  # noqa: E402, F401
