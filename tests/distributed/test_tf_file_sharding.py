"""TF's FILE sharding under a 2-worker MultiWorkerMirroredStrategy, 2 processes: a dataset reading files (AUTO or
FILE policy) gives worker ``w`` the whole files ``w``, ``w + 2``... in per-replica batches of half the global
batch, as TF documents it (tf_file_sharding_script.py; compat_tests/tensorflow/test_distribute_sharding.py holds
it against real TF's workers)."""

import json

from tests.distributed.launch import run_ok


def _flat(batches):
    return [line for batch in batches for line in batch]


def test_file_datasets_give_each_worker_whole_files(tmp_path):
    run_ok(2, "tf_file_sharding_script.py", "vfw.tensorflow", tmp_path)
    for worker in range(2):
        got = json.loads((tmp_path / f"{worker}.json").read_text())
        mine = [f"t{i}-{j}" for i in (worker, worker + 2) for j in range(3)]  # 4 files of 3 lines
        for key in ("text_auto", "text_file", "list_files_flat_map", "concatenated"):
            assert _flat(got[key]) == mine, key
        assert [len(b) for b in got["text_auto"]] == [2, 2, 2]  # global batches of 4: 2 rows per replica
        assert _flat(got["names_map_batch"]) == [line.upper() for line in mine]
        assert sorted(_flat(got["text_shuffled"])) == sorted(mine)
        assert _flat(got["records_auto"]) == [f"r{worker}-{j}" for j in range(5)]
        # the user's dataset itself still reads every file
        assert _flat(got["kept_whole"]) == [f"t{i}-{j}" for i in range(4) for j in range(3)]
        # sources reading no files: AUTO shards by data (FILE refuses), one file for 2 workers is refused
        assert _flat(got["no_files_auto"]) == ["abcd"[worker], "abcd"[worker + 2]]
        assert got["no_files_file"][0] == "NotFoundError"
        assert got["one_file_auto"][0] == got["one_file_file"][0] == "InvalidArgumentError"
        # 3 files: worker 1 reads one, then empty batches while worker 0 reads its second
        assert got["three_files"] == ([["u0-0"], ["u0-1"], ["u2-0"], ["u2-1"]] if worker == 0 else
                                      [["u1-0"], ["u1-1"], [], []])
        assert got["rows_in_function"] == (6 if worker == 0 else 3)
