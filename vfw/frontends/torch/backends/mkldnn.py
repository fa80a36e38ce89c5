"""torch.backends.mkldnn: not available (vfw computes with numpy)."""

enabled = False


def is_available():
    return False
