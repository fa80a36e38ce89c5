"""Print the ONNX backend suite's pass count at the end of a pytest run that ran it.

At the repository root so that pytest-xdist's controller, which collects nothing, loads it too: it sees every
worker's reports.
"""

SUITE = "test_backend_suite.py::test_backend_case"


def pytest_terminal_summary(terminalreporter):
    counts = {}
    for outcome in ("passed", "failed", "skipped", "xfailed", "xpassed"):
        counts[outcome] = sum(SUITE in report.nodeid for report in terminalreporter.stats.get(outcome, []))
    ran = counts["passed"] + counts["failed"] + counts["xfailed"] + counts["xpassed"]
    if not ran and not counts["skipped"]:
        return
    rate = 100.0 * counts["passed"] / ran if ran else 0.0
    terminalreporter.write_sep("-", "ONNX backend test suite (vfw.onnx_io.backend, CPU)")
    terminalreporter.write_line(f"{counts['passed']} of {ran} cases pass ({rate:.1f}%); "
                                f"{counts['xfailed']} known failures, {counts['failed']} unexpected failures, "
                                f"{counts['skipped']} excluded (unsupported element types, image decoding, "
                                "random outputs, the heavy light_vgg19)")
