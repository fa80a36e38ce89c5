"""keras.callbacks: the hooks of ``fit``/``evaluate``/``predict`` and Keras' built-in callbacks.

Modules: ``callback`` (Callback, CallbackList), ``history`` (History, ProgbarLogger), ``monitor``
(EarlyStopping, ReduceLROnPlateau), ``checkpoint`` (ModelCheckpoint, BackupAndRestore),
``training_control`` (LearningRateScheduler, TerminateOnNaN, LambdaCallback, SwapEMAWeights),
``loggers`` (CSVLogger, TensorBoard), ``remote_monitor`` (RemoteMonitor).  Not provided: OrbaxCheckpoint
(Orbax).
"""

from vfw.frontends.tensorflow.keras.src.callbacks.callback import Callback, CallbackList
from vfw.frontends.tensorflow.keras.src.callbacks.checkpoint import BackupAndRestore, ModelCheckpoint
from vfw.frontends.tensorflow.keras.src.callbacks.history import History, ProgbarLogger
from vfw.frontends.tensorflow.keras.src.callbacks.loggers import CSVLogger, TensorBoard
from vfw.frontends.tensorflow.keras.src.callbacks.monitor import EarlyStopping, ReduceLROnPlateau
from vfw.frontends.tensorflow.keras.src.callbacks.remote_monitor import RemoteMonitor
from vfw.frontends.tensorflow.keras.src.callbacks.training_control import (
    LambdaCallback,
    LearningRateScheduler,
    SwapEMAWeights,
    TerminateOnNaN,
)

_PUBLIC = [Callback, CallbackList, BackupAndRestore, ModelCheckpoint, History, ProgbarLogger, CSVLogger, TensorBoard,
           EarlyStopping, ReduceLROnPlateau, RemoteMonitor, LambdaCallback, LearningRateScheduler, SwapEMAWeights,
           TerminateOnNaN]
API = {"callbacks": sorted(cls.__name__ for cls in _PUBLIC)}
