"""tf.errors: the exceptions TensorFlow ops raise, by error code."""

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, \
    RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, \
    DATA_LOSS, UNAUTHENTICATED = range(17)


class OpError(Exception):
    """An error an op raised.

    Parameters
    ----------
    node_def : None
        The graph node (vfw has none in eager mode).
    op : None or str
        The op (None in eager mode).
    message : str
    error_code : int
    """

    def __init__(self, node_def, op, message, error_code=UNKNOWN, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self):
        """str: the error message."""
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    @property
    def error_code(self):
        """int: the error code (``tf.errors.INVALID_ARGUMENT``...)."""
        return self._error_code

    @property
    def experimental_payloads(self):
        return {}

    def __str__(self):
        return self._message

    def __reduce__(self):
        return (type(self), (self._node_def, self._op, self._message))


def _error_class(name, code):
    def __init__(self, node_def, op, message, *args):  # noqa: N807  (becomes the class's __init__)
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": f"OpError with code {code}.",
                                   "__module__": __name__})


CancelledError = _error_class("CancelledError", CANCELLED)
UnknownError = _error_class("UnknownError", UNKNOWN)
InvalidArgumentError = _error_class("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _error_class("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _error_class("NotFoundError", NOT_FOUND)
AlreadyExistsError = _error_class("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _error_class("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _error_class("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _error_class("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _error_class("AbortedError", ABORTED)
OutOfRangeError = _error_class("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _error_class("UnimplementedError", UNIMPLEMENTED)
InternalError = _error_class("InternalError", INTERNAL)
UnavailableError = _error_class("UnavailableError", UNAVAILABLE)
DataLossError = _error_class("DataLossError", DATA_LOSS)
UnauthenticatedError = _error_class("UnauthenticatedError", UNAUTHENTICATED)


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a symbolic tensor that only works eagerly (e.g. ``bool(tensor)`` in a graph)."""
