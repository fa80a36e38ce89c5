"""torch.testing: ``assert_close`` and ``make_tensor``."""

from vfw.frontends.torch.testing._comparison import assert_close
from vfw.frontends.torch.testing._creation import make_tensor

__all__ = ["assert_close", "make_tensor"]
