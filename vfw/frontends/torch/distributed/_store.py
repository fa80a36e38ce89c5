"""torch.distributed's key-value stores: HashStore (one process), FileStore (a shared file), TCPStore (a server in
the master process, over Python sockets), PrefixStore (a namespace in another store).

Values are bytes (``str`` values are UTF-8 encoded); ``add`` keeps a counter as its decimal text, as torch does.
Every store runs its operations through one table of pure operations (:func:`_apply`) on a state of
``{"data": {key: bytes}, "queues": {key: [bytes]}}``; an operation that must wait (a missing key, an empty
queue) is retried until the store's timeout, then raises :class:`DistStoreError` ("Wait timeout").
"""

import datetime
import fcntl
import pickle
import socket
import socketserver
import struct
import threading
import time

from vfw.frontends.torch.distributed._groups import DistNetworkError, DistStoreError, QueueEmptyError

__all__ = ["FileStore", "HashStore", "PrefixStore", "Store", "TCPStore"]

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)
_WAIT = object()  # an operation's result when it must wait for another process


def _key(key, method):
    if not isinstance(key, str):
        raise TypeError(f"{method}(): incompatible function arguments: key must be a str, got {type(key).__name__}")
    return key


def _value(value, method):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, list) and all(isinstance(v, int) for v in value):  # torch accepts a list of byte values
        return bytes(value)
    raise TypeError(f"{method}(): incompatible function arguments: value must be a str or bytes, got "
                    f"{type(value).__name__}")


def _apply(state, method, args):
    """Run store operation ``method`` on ``state``: ``(result, changed)``, result ``_WAIT`` if it must wait."""
    data, queues = state["data"], state["queues"]
    if method == "set":
        data[args[0]] = args[1]
        return None, True
    if method == "get":
        return data.get(args[0], _WAIT), False
    if method == "add":
        key, amount = args
        current = data.get(key, b"0")
        try:
            total = int(current) + amount
        except ValueError:
            raise ValueError("stoll") from None
        data[key] = str(total).encode()
        return total, True
    if method == "compare_set":
        key, expected, desired = args
        if key not in data:
            if expected:
                return expected, False  # torch: a missing key with a non-empty expectation is left unset
            data[key] = desired
            return desired, True
        if data[key] == expected:
            data[key] = desired
            return desired, True
        return data[key], False
    if method == "check":
        return all(k in data for k in args[0]), False
    if method == "wait":
        return (None if all(k in data for k in args[0]) else _WAIT), False
    if method == "delete_key":
        return data.pop(args[0], None) is not None, True
    if method == "num_keys":
        return len(data), False
    if method == "append":
        data[args[0]] = data.get(args[0], b"") + args[1]
        return None, True
    if method == "multi_get":
        values = [data.get(k, _WAIT) for k in args[0]]
        return (_WAIT if _WAIT in values else values), False
    if method == "multi_set":
        data.update(zip(*args))
        return None, True
    if method == "list_keys":
        return list(data), False
    if method == "queue_push":
        queues.setdefault(args[0], []).append(args[1])
        return None, True
    if method == "queue_len":
        return len(queues.get(args[0], [])), False
    if method == "queue_pop":
        queue = queues.get(args[0])
        return (queue.pop(0), True) if queue else (_WAIT, False)
    raise AttributeError(f"store has no operation {method!r}")


def _seconds(timeout):
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"timeout must be a datetime.timedelta, got {type(timeout).__name__}")
    return timeout.total_seconds()


class Store:
    """A key-value store shared by the processes of a job (the base class of torch's stores).

    Subclasses implement ``_call(method, args, timeout_seconds)``, which runs :func:`_apply` and waits while it
    answers ``_WAIT``.
    """

    def __init__(self):
        self._timeout = _DEFAULT_TIMEOUT

    @property
    def timeout(self):
        """How long ``get``/``wait``/``queue_pop`` wait for a key (a timedelta, default 300 s)."""
        return self._timeout

    def set_timeout(self, timeout):
        """Set :attr:`timeout` (a timedelta)."""
        _seconds(timeout)
        self._timeout = timeout

    def _run(self, method, args, timeout=None):
        return self._call(method, args, _seconds(self._timeout if timeout is None else timeout))

    def _call(self, method, args, seconds):
        raise NotImplementedError(f"{type(self).__name__} does not implement the store operations")

    def set(self, key, value):
        """Store ``value`` (str or bytes) under ``key``."""
        self._run("set", (_key(key, "set"), _value(value, "set")))

    def get(self, key):
        """The bytes under ``key``, waiting up to :attr:`timeout` for another process to set it."""
        return self._run("get", (_key(key, "get"),))

    def add(self, key, amount):
        """Add the integer ``amount`` to the counter ``key`` (0 when missing); the new value."""
        if not isinstance(amount, int):
            raise TypeError(f"add(): incompatible function arguments: amount must be an int, got "
                            f"{type(amount).__name__}")
        return self._run("add", (_key(key, "add"), amount))

    def compare_set(self, key, expected_value, desired_value):
        """Set ``key`` to ``desired_value`` if it holds ``expected_value`` (or is missing and ``expected_value`` is
        empty); the value ``key`` then holds (``expected_value`` when missing and not set)."""
        return self._run("compare_set", (_key(key, "compare_set"), _value(expected_value, "compare_set"),
                                         _value(desired_value, "compare_set")))

    def check(self, keys):
        """Whether every key of ``keys`` is set (no waiting)."""
        return self._run("check", ([_key(k, "check") for k in keys],))

    def wait(self, keys, timeout=None):
        """Wait until every key of ``keys`` is set (up to ``timeout``, default :attr:`timeout`)."""
        self._run("wait", ([_key(k, "wait") for k in keys],), timeout)

    def delete_key(self, key):
        """Remove ``key``; whether it was there."""
        return self._run("delete_key", (_key(key, "delete_key"),))

    def num_keys(self):
        """The number of keys set."""
        return self._run("num_keys", ())

    def append(self, key, value):
        """Append ``value`` to the bytes under ``key`` (created when missing)."""
        self._run("append", (_key(key, "append"), _value(value, "append")))

    def multi_get(self, keys):
        """The values of ``keys`` (waiting for all of them)."""
        return self._run("multi_get", ([_key(k, "multi_get") for k in keys],))

    def multi_set(self, keys, values):
        """Set each of ``keys`` to the matching entry of ``values``."""
        if len(keys) != len(values):
            raise ValueError(f"multi_set: {len(keys)} keys but {len(values)} values")
        self._run("multi_set", ([_key(k, "multi_set") for k in keys], [_value(v, "multi_set") for v in values]))

    def list_keys(self):
        """Every key set."""
        return self._run("list_keys", ())

    def queue_push(self, key, value):
        """Push ``value`` onto the queue ``key``."""
        self._run("queue_push", (_key(key, "queue_push"), _value(value, "queue_push")))

    def queue_len(self, key):
        """The length of the queue ``key``."""
        return self._run("queue_len", (_key(key, "queue_len"),))

    def queue_pop(self, key, block=True):
        """Pop the oldest value of queue ``key``, waiting up to :attr:`timeout` (``block=False``:
        :class:`QueueEmptyError` when it is empty)."""
        try:
            return self._run("queue_pop", (_key(key, "queue_pop"),), None if block else datetime.timedelta(0))
        except DistStoreError:  # a wait that timed out
            if block:
                raise
            raise QueueEmptyError("queue is empty") from None

    def has_extended_api(self):
        """True: append, multi_get/multi_set and the queues are available."""
        return True

    def clone(self):
        """A store on the same data (the same object here: it is safe to share between threads)."""
        return self


def _wait_timeout():
    return DistStoreError("Wait timeout")


class HashStore(Store):
    """A store in this process's memory (threads share it)."""

    def __init__(self):
        super().__init__()
        self._state = {"data": {}, "queues": {}}
        self._changed = threading.Condition()

    def _call(self, method, args, seconds):
        deadline = time.monotonic() + seconds
        with self._changed:
            while True:
                result, changed = _apply(self._state, method, args)
                if changed:
                    self._changed.notify_all()
                if result is not _WAIT:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    raise _wait_timeout()
                self._changed.wait(left)


class FileStore(Store):
    """A store in the file ``file_name``, shared by every process that opens it (on one machine or a shared
    file system); ``world_size`` is accepted (-1: unknown)."""

    _POLL = 0.005
    _QUEUE_METHODS = ("queue_push", "queue_pop", "queue_len")

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        if not isinstance(file_name, str):
            raise TypeError(f"FileStore: file_name must be a str, got {type(file_name).__name__}")
        self.path, self.world_size = file_name, world_size
        with open(self.path, "ab"):
            pass

    def has_extended_api(self):
        """False: torch's FileStore has no queues."""
        return False

    def delete_key(self, key):
        """Remove ``key``; True (torch's FileStore says True whether or not the key was there)."""
        super().delete_key(key)
        return True

    def _call(self, method, args, seconds):
        if method in self._QUEUE_METHODS:
            raise NotImplementedError("queue support is not implemented.")
        deadline = time.monotonic() + seconds
        while True:
            with open(self.path, "r+b") as f:
                fcntl.flock(f, fcntl.LOCK_EX)  # released when the file closes
                content = f.read()
                state = pickle.loads(content) if content else {"data": {}, "queues": {}}
                result, changed = _apply(state, method, args)
                if changed:
                    f.seek(0)
                    f.truncate()
                    f.write(pickle.dumps(state))
            if result is not _WAIT:
                return result
            if time.monotonic() > deadline:  # torch's FileStore: a plain RuntimeError naming a key it got
                if method == "wait":
                    raise RuntimeError("Wait timeout")
                missing = next(k for k in (args[0] if method == "multi_get" else [args[0]]) if k not in state["data"])
                raise RuntimeError(f"Timeout waiting for key: {missing} after {round(seconds * 1000)} ms")
            time.sleep(self._POLL)


class PrefixStore(Store):
    """The keys of ``store`` that start with ``prefix + "/"``, seen without the prefix."""

    def __init__(self, prefix, store):
        super().__init__()
        if not isinstance(store, Store):
            raise TypeError(f"PrefixStore: store must be a torch.distributed.Store, got {type(store).__name__}")
        self.prefix, self.underlying_store = prefix, store
        self._timeout = store.timeout

    def _prefixed(self, key):
        return f"{self.prefix}/{key}"

    def _call(self, method, args, seconds):
        if method in ("num_keys", "list_keys"):  # torch: the underlying store's count
            return self.underlying_store._call(method, args, seconds)
        if method in ("check", "wait", "multi_get", "multi_set"):
            args = ([self._prefixed(k) for k in args[0]],) + tuple(args[1:])
        else:
            args = (self._prefixed(args[0]),) + tuple(args[1:])
        return self.underlying_store._call(method, args, seconds)


# -- TCPStore: a threaded server in the master process; each client is one socket ---------------------------------
def _send_message(sock, obj):
    payload = pickle.dumps(obj)
    sock.sendall(struct.pack("!Q", len(payload)) + payload)


def _receive_message(sock):
    header = _receive_exactly(sock, 8)
    return pickle.loads(_receive_exactly(sock, struct.unpack("!Q", header)[0]))


def _receive_exactly(sock, count):
    chunks = []
    while count:
        chunk = sock.recv(min(count, 1 << 20))
        if not chunk:
            raise ConnectionError("TCPStore: the connection closed")
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


class _StoreRequestHandler(socketserver.BaseRequestHandler):
    """Serves one client's requests, in order, against the server's HashStore."""

    def handle(self):
        table = self.server.table
        while True:
            try:
                method, args, seconds = _receive_message(self.request)
            except (ConnectionError, OSError, EOFError):
                return
            try:
                reply = ("ok", table._call(method, args, seconds))
            except (DistStoreError, ValueError, TypeError, AttributeError) as e:
                reply = ("error", type(e).__name__, str(e))
            _send_message(self.request, reply)


class _StoreServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


_ERRORS = {"DistStoreError": DistStoreError, "ValueError": ValueError, "TypeError": TypeError,
           "AttributeError": AttributeError}


class TCPStore(Store):
    """A store served over TCP by the master process (``is_master=True``, listening on ``host_name:port``; port 0
    picks a free one, see :attr:`port`); every process, the master included, is a client.

    With ``wait_for_workers`` and a ``world_size``, the master's constructor waits until ``world_size`` clients
    have connected (up to ``timeout``).
    """

    _WORKERS_KEY = "__vfw_tcpstore_workers__"

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=_DEFAULT_TIMEOUT,
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        super().__init__()
        seconds = _seconds(timeout)
        self._timeout = timeout
        self.host, self.world_size, self.libuvBackend = host_name, world_size, use_libuv
        self._server = None
        if is_master:
            try:
                self._server = _StoreServer((host_name, int(port)), _StoreRequestHandler)
            except OSError as e:
                raise DistNetworkError(f"The server socket has failed to listen on {host_name}:{port} ({e})") from None
            self._server.table = HashStore()
            threading.Thread(target=self._server.serve_forever, name="vfw-tcpstore", daemon=True).start()
            port = self._server.server_address[1]
        self.port = int(port)
        self._lock = threading.Lock()  # one request at a time on this client's socket
        self._socket = self._connect(seconds)
        self.add(self._WORKERS_KEY, 1)
        if is_master and wait_for_workers and world_size:
            deadline = time.monotonic() + seconds
            while int(self.get(self._WORKERS_KEY)) < world_size:
                if time.monotonic() > deadline:
                    raise DistStoreError(f"Timed out after {seconds:g} s waiting for {world_size} workers to connect "
                                         f"to the TCPStore at {host_name}:{self.port}")
                time.sleep(0.01)

    def _connect(self, seconds):
        deadline = time.monotonic() + seconds
        while True:
            try:
                return socket.create_connection((self.host, self.port), timeout=max(seconds, 1))
            except OSError as e:
                if time.monotonic() > deadline:
                    raise DistNetworkError(f"Failed to connect to the TCPStore server at {self.host}:{self.port} "
                                           f"within {seconds:g} s ({e})") from None
                time.sleep(0.05)

    def _call(self, method, args, seconds):
        with self._lock:
            self._socket.settimeout(seconds + 30)  # the server answers "Wait timeout" after `seconds`
            _send_message(self._socket, (method, args, seconds))
            reply = _receive_message(self._socket)
        if reply[0] == "ok":
            return reply[1]
        if reply[1] == "DistStoreError":  # a wait that timed out: torch's TCPStore names the keys
            keys = args[0] if isinstance(args[0], list) else [args[0]]
            raise DistStoreError(f"wait timeout after {round(seconds * 1000)}ms, keys: "
                                 + ", ".join("/" + k for k in keys))
        raise _ERRORS[reply[1]](reply[2])

    def __del__(self):
        sock = getattr(self, "_socket", None)
        if sock is not None:
            sock.close()
        if getattr(self, "_server", None) is not None:
            self._server.shutdown()
            self._server.server_close()
