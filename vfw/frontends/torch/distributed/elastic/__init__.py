"""torch.distributed.elastic: only ``multiprocessing.errors`` (``record``), which torchrun's scripts use.

``python -m vfw.distributed.run`` (torchrun-like, over MPI) stands in for the elastic agent; it does not restart
failed processes.
"""
