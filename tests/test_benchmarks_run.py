"""The benchmark runner keeps working (it is run, not timed: benchmarks are not tests)."""

import json

from benchmarks.__main__ import ENTRIES, main


def test_runner_prints_every_table_and_writes_json(tmp_path, capsys):
    path = tmp_path / "bench.json"
    main(["--rounds", "1", "--json", str(path)])
    out = capsys.readouterr().out
    for title, _ in ENTRIES.values():
        assert title in out
    data = json.loads(path.read_text())
    assert set(data) == set(ENTRIES)
    assert all(len(row) == len(entry["header"]) for entry in data.values() for row in entry["rows"])
