"""``python -m vfw coverage``: which public callables of the real frameworks vfw provides.

The real frameworks' names come from the committed snapshots (``snapshot_<framework>_<version>.json``,
written by ``compat_tests/coverage_snapshot.py``), so the report runs without torch or TensorFlow installed.
"""

import argparse
import json

from vfw._coverage.namespaces import NAMESPACES, resolve, snapshot_path, vfw_path


def load_snapshot(framework):
    """The snapshot dictionary of ``framework``: ``framework``, ``version`` and ``namespaces`` (name -> names)."""
    return json.loads(snapshot_path(framework).read_text())


def _provides(namespace, name):
    try:
        return callable(getattr(namespace, name))
    except AttributeError:
        return False


def coverage(framework):
    """Coverage of ``framework``'s snapshot by vfw.

    Returns
    -------
    dict
        ``framework``, ``version`` (the snapshot's), ``provided`` and ``total`` over all namespaces, and
        ``namespaces``: reported name -> ``{"vfw": vfw's path, "provided": int, "total": int,
        "missing": sorted names vfw lacks}``.
    """
    snapshot = load_snapshot(framework)
    namespaces = {}
    order = list(NAMESPACES[framework]["namespaces"])  # the configured order: the main namespace first

    def position(name):
        return order.index(name) if name in order else len(order)

    for public_name in sorted(snapshot["namespaces"], key=position):
        names = snapshot["namespaces"][public_name]
        path = vfw_path(framework, public_name)
        namespace = resolve(path)
        missing = [name for name in names if namespace is None or not _provides(namespace, name)]
        namespaces[public_name] = {"vfw": path, "provided": len(names) - len(missing), "total": len(names),
                                   "missing": missing}
    return {
        "framework": framework,
        "version": snapshot["version"],
        "provided": sum(entry["provided"] for entry in namespaces.values()),
        "total": sum(entry["total"] for entry in namespaces.values()),
        "namespaces": namespaces,
    }


def _percent(provided, total):
    return f"{100 * provided / total:.0f}%" if total else "-"


def format_markdown(reports, missing=True):
    """The reports as Markdown: one count table per framework, then (with ``missing``) the missing names."""
    lines = []
    for report in reports:
        lines += [f"### {report['framework']} {report['version']}", "",
                  "| namespace | provided | total | coverage |", "|---|---:|---:|---:|"]
        for name, entry in report["namespaces"].items():
            lines.append(f"| `{name}` | {entry['provided']} | {entry['total']} | "
                         f"{_percent(entry['provided'], entry['total'])} |")
        lines += [f"| **all** | **{report['provided']}** | **{report['total']}** | "
                  f"**{_percent(report['provided'], report['total'])}** |", ""]
        if missing:
            for name, entry in report["namespaces"].items():
                if entry["missing"]:
                    lines += [f"Missing from `{name}` ({len(entry['missing'])}): "
                              + ", ".join(f"`{missing_name}`" for missing_name in entry["missing"]), ""]
    return "\n".join(lines)


def main(argv=None):
    """``python -m vfw coverage [--framework torch|tensorflow] [--format md|json] [--summary]``."""
    parser = argparse.ArgumentParser(prog="python -m vfw coverage",
                                     description="Which public callables of the real frameworks vfw provides.")
    parser.add_argument("--framework", choices=sorted(NAMESPACES), action="append",
                        help="framework to report (repeatable; default: all)")
    parser.add_argument("--format", choices=("md", "json"), default="md", help="output format (default: md)")
    parser.add_argument("--summary", action="store_true", help="counts only, without the missing names")
    options = parser.parse_args(argv)
    reports = [coverage(framework) for framework in options.framework or sorted(NAMESPACES)]
    if options.summary:
        for report in reports:
            for entry in report["namespaces"].values():
                del entry["missing"]
    if options.format == "json":
        print(json.dumps({report["framework"]: report for report in reports}, indent=1))
    else:
        print(format_markdown(reports, missing=not options.summary))
    return 0
