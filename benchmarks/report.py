"""The combined ratio table over all entries' tables, and its bar chart."""

import math

from benchmarks.targets import comparisons_for, format_seconds, seconds_per_unit, target_for
from benchmarks.timing import print_table

COMBINED_HEADER = ["entry", "case", "vfw", "reference", "ref. name", "ratio", "target", "met"]


def _number(cell):
    """A table cell as a float (``"1.25x"`` -> 1.25), or None for ``"n/a"``, blanks and NaN."""
    try:
        value = float(str(cell).strip().rstrip("x"))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def combined_rows(results):
    """One row per (entry, case, reference) with both times measured.

    Parameters
    ----------
    results : dict[str, dict]
        Entry name -> ``{"header": [...], "rows": [[...], ...]}`` as the entries return them.

    Returns
    -------
    (list[dict], list[str])
        The rows (keys: entry, case, vfw_seconds, reference_seconds, reference, ratio, target (its
        text), met, ratio_limit (the ratio a ratio target allows); None where no target applies)
        and notes on entries whose columns could not be read.
    """
    rows, notes = [], []
    for entry, table in results.items():
        header = table.get("header")
        if header is None:  # the entry failed: reported elsewhere
            continue
        comparisons = comparisons_for(entry, header)
        if not comparisons:
            notes.append(f"{entry}: no vfw/reference time columns recognised in {header} "
                         "(add the entry to COMPARISONS in benchmarks/targets.py)")
        for comparison in comparisons:
            if comparison.vfw_column not in header or comparison.reference_column not in header:
                notes.append(f"{entry}: columns {comparison.vfw_column!r}/{comparison.reference_column!r} "
                             f"not in {header}")
                continue
            vfw_at, reference_at = header.index(comparison.vfw_column), header.index(comparison.reference_column)
            vfw_scale = seconds_per_unit(comparison.vfw_column)
            reference_scale = seconds_per_unit(comparison.reference_column)
            for row in table["rows"]:
                case = str(row[0])
                vfw_time, reference_time = _number(row[vfw_at]), _number(row[reference_at])
                if vfw_time is None or reference_time is None or reference_time <= 0:
                    continue
                vfw_time, reference_time = vfw_time * vfw_scale, reference_time * reference_scale
                target = target_for(entry, case, comparison.reference)
                rows.append({
                    "entry": entry, "case": case, "vfw_seconds": vfw_time, "reference_seconds": reference_time,
                    "reference": comparison.reference, "ratio": vfw_time / reference_time,
                    "target": None if target is None else target.describe(),
                    "met": None if target is None else target.met_by(vfw_time, reference_time),
                    "ratio_limit": target.limit if target is not None and target.kind == "ratio" else None,
                })
    return rows, notes


def print_combined(rows, notes):
    """Print the combined table, the count of targets met, and the notes."""
    printed = [[r["entry"], r["case"], format_seconds(r["vfw_seconds"]), format_seconds(r["reference_seconds"]),
                r["reference"], f"{r['ratio']:.3g}x", r["target"] or "", {True: "yes", False: "NO", None: ""}[r["met"]]]
               for r in rows]
    print_table("All entries: vfw time / reference time", COMBINED_HEADER, printed)
    with_target = [r for r in rows if r["met"] is not None]
    print(f"\ntargets met: {sum(r['met'] for r in with_target)} of {len(with_target)}")
    for note in notes:
        print(f"note: {note}")


def write_png(rows, path, title):
    """Write a horizontal bar chart of the ratios (log scale, each case's target as a line) to ``path``.

    Returns
    -------
    bool
        False (and writes nothing) when matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    labels = [f"{r['entry']}: {r['case']} (vs {r['reference']})" for r in rows]
    colors = [{True: "tab:green", False: "tab:red", None: "tab:gray"}[r["met"]] for r in rows]
    fig, ax = plt.subplots(figsize=(12, 1 + 0.28 * len(rows)))
    positions = range(len(rows))
    ax.barh(positions, [r["ratio"] - 1 for r in rows], left=1, color=colors)  # from 1x: left faster, right slower
    for y, r in zip(positions, rows):
        if r["ratio_limit"] is not None:
            ax.plot([r["ratio_limit"]] * 2, [y - 0.45, y + 0.45], color="black", linewidth=2)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(list(positions), labels, fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first row on top, no empty margin
    ax.set_xlabel("vfw time / reference time (log scale; black: target, green: met, red: missed, gray: no target)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
