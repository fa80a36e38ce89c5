"""Coverage of the real frameworks' public APIs by vfw (``python -m vfw coverage``)."""
