"""keras.export: ExportArchive (serving endpoints in vfw's SavedModel format)."""

from vfw.frontends.tensorflow.keras.src import _api

globals().update(_api.names("export"))
