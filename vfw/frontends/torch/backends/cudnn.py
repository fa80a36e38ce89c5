"""torch.backends.cudnn: not available; the flags scripts set are kept."""

enabled = True
deterministic = False
benchmark = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
