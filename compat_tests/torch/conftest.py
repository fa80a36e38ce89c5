"""What every torch compat test starts from, whichever test files ran before it in its process."""

import sys

import pytest


@pytest.fixture(autouse=True)
def _real_torch_validates_distribution_arguments():
    """Real torch's first compilation (torch.compile, torch.export) turns distribution argument validation off
    process-wide (dynamo's TorchPatcher); the distribution tests compare validation errors with real torch, and an
    xdist worker may have run a compiling test file before them."""
    real = sys.modules.get("torch")
    distribution = getattr(getattr(real, "distributions", None), "Distribution", None)
    if distribution is not None and not distribution._validate_args:
        distribution.set_default_validate_args(True)
