"""torch.distributed.elastic.multiprocessing.errors.error_handler: :class:`ErrorHandler`."""

import faulthandler
import json
import os
import time
import traceback
import warnings

__all__ = ["ErrorHandler"]


class ErrorHandler:
    """Writes an exception, as JSON, to the file named by ``TORCHELASTIC_ERROR_FILE`` (nothing when it is unset).

    The file holds ``{"message": {"message": "Type: text", "extraInfo": {"py_callstack": traceback,
    "timestamp": "seconds"}}}``, torch's format, which a launcher reads to report the failure's root cause.
    """

    def _get_error_file_path(self):
        return os.environ.get("TORCHELASTIC_ERROR_FILE", None)

    def initialize(self):
        """Print every thread's stack on a fatal signal (segfault...), as torch does."""
        try:
            faulthandler.enable(all_threads=True)
        except Exception as e:  # noqa: BLE001  (e.g. no usable stderr: a warning, never a failure)
            warnings.warn(f"Unable to enable fault handler. {type(e).__name__}: {e}", stacklevel=2)

    def _write_error_file(self, file_path, error_msg):
        try:
            with open(file_path, "w") as fp:
                fp.write(error_msg)
        except Exception as e:  # noqa: BLE001
            warnings.warn(f"Unable to write error to file. {type(e).__name__}: {e}", stacklevel=2)

    def record_exception(self, e):
        """Write ``e`` (being handled: its traceback is the current one) to the error file, if one is set."""
        path = self._get_error_file_path()
        if path:
            data = {"message": {"message": f"{type(e).__name__}: {e}",
                                "extraInfo": {"py_callstack": traceback.format_exc(),
                                              "timestamp": str(int(time.time()))}}}
            with open(path, "w") as fp:
                json.dump(data, fp)

    def override_error_code_in_rootcause_data(self, rootcause_error_file, rootcause_error, error_code=0):
        """Set ``errorCode`` in a child's error data (a child killed by a signal cannot write its own)."""
        if isinstance(rootcause_error.get("message"), dict):
            rootcause_error["message"]["errorCode"] = error_code

    def dump_error_file(self, rootcause_error_file, error_code=0):
        """Copy a child's error file (with ``error_code``) to this process's own error file."""
        with open(rootcause_error_file) as fp:
            rootcause_error = json.load(fp)
        if error_code:
            self.override_error_code_in_rootcause_data(rootcause_error_file, rootcause_error, error_code)
        path = self._get_error_file_path()
        if path:
            if os.path.isfile(path):
                os.remove(path)
            self._write_error_file(path, json.dumps(rootcause_error))
