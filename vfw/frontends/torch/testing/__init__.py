"""torch.testing: ``assert_close``, ``make_tensor`` and the deprecated ``assert_allclose``."""

from vfw.frontends.torch.testing._comparison import assert_close
from vfw.frontends.torch.testing._creation import make_tensor
from vfw.frontends.torch.testing._deprecated import assert_allclose

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
