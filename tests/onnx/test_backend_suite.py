"""ONNX's official backend test suite against ``vfw.onnx_io.backend``.

One test per case (``backend_cases.all_cases``): prepare the model with the vfw backend, run every
data set, compare with the case's rtol/atol.  Excluded cases are skipped with their reason; the
known failures are strict xfails (each with its reason: a case that starts passing fails the run,
so the list stays true).  ``conftest.py`` prints the pass count at the end of the run.
"""

import pytest

from tests.onnx.backend_cases import EXPECTED_FAILURES, all_cases, assert_similar, exclusion
from vfw.onnx_io import backend


def _params():
    params = []
    for case in all_cases():
        marks = []
        reason = exclusion(case.name, case.model)
        if reason is not None:
            marks.append(pytest.mark.skip(reason=f"excluded: {reason}"))
        elif case.name in EXPECTED_FAILURES:
            marks.append(pytest.mark.xfail(reason=EXPECTED_FAILURES[case.name], strict=True))
        params.append(pytest.param(case, id=case.name, marks=marks))
    return params


@pytest.mark.parametrize("case", _params())
def test_backend_case(case):
    rep = backend.prepare(case.model, "CPU")
    for inputs, expected in case.data_sets:
        outputs = rep.run(inputs)
        assert len(outputs) == len(expected), f"{len(outputs)} outputs, expected {len(expected)}"
        for k, (e, a) in enumerate(zip(expected, outputs)):
            assert_similar(e, a, case.rtol, case.atol, f"output {k}")
