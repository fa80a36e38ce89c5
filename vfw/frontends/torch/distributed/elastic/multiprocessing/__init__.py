"""torch.distributed.elastic.multiprocessing: its ``errors`` subpackage (``record``, ``ChildFailedError``)."""
