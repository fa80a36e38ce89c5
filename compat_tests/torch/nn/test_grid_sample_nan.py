"""F.grid_sample at NaN grid coordinates (a diverged spatial-transformer head produces them), compared with real
torch: 2-D border/reflection clamp NaN to the first pixel and 'zeros' padding propagates NaN (0 for nearest);
volumes clamp NaN to the last voxel and drop it under 'zeros'.  vfw used to cast NaN to an int64 index and raise."""

import numpy as np
import pytest

from compat_tests.torch.harness import check

NAN = float("nan")
GRID_2D = np.array([[[[NAN, NAN], [NAN, 0.2], [0.2, NAN], [0.5, -0.5]]]], np.float32)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_2d_nan_coordinates(mode, padding_mode, align_corners):
    image = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    check(lambda torch, x, g: torch.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding_mode,
                                                               align_corners=align_corners), image, GRID_2D)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_3d_nan_coordinates(mode, padding_mode):
    volume = np.arange(1, 9, dtype=np.float32).reshape(1, 1, 2, 2, 2)
    grid = np.concatenate([GRID_2D[:, None], GRID_2D[:, None, :, :, :1]], axis=-1)
    check(lambda torch, x, g: torch.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding_mode,
                                                               align_corners=False), volume, grid)
