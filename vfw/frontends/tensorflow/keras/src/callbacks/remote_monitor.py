"""``keras.callbacks.RemoteMonitor``: each epoch's logs POSTed to a server (through ``requests``, as Keras)."""

import json
import warnings

import numpy as np

from vfw.frontends.tensorflow.keras.src.callbacks.callback import Callback


class RemoteMonitor(Callback):
    """Send ``{"epoch": epoch, **logs}`` to ``root + path`` at the end of each epoch (an HTTP POST).

    Parameters
    ----------
    root : str, default "http://localhost:9000"
    path : str, default "/publish/epoch/end/"
    field : str, default "data"
        The form field holding the JSON text (when not ``send_as_json``).
    headers : dict, optional
    send_as_json : bool, default False
        Send the payload as the JSON body (``application/json``) instead of a form.

    Requires the ``requests`` package (ImportError at the first epoch end without it); an unreachable
    server gives a warning, not an error.
    """

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/", field="data", headers=None,
                 send_as_json=False):
        super().__init__()
        self.root = root
        self.path = path
        self.field = field
        self.headers = headers
        self.send_as_json = send_as_json

    def on_epoch_end(self, epoch, logs=None):
        try:
            import requests
        except ImportError:
            raise ImportError("RemoteMonitor requires the `requests` library.") from None
        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            send[key] = value.item() if isinstance(value, (np.ndarray, np.generic)) else value
        try:
            if self.send_as_json:
                requests.post(self.root + self.path, json=send, headers=self.headers)
            else:
                requests.post(self.root + self.path, {self.field: json.dumps(send)}, headers=self.headers)
        except requests.exceptions.RequestException:
            warnings.warn(f"Could not reach RemoteMonitor root server at {self.root}", stacklevel=2)


API = {"callbacks": ["RemoteMonitor"]}
