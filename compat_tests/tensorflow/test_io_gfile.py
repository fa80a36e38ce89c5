"""tf.io.gfile against TF 2.21: each scenario runs in a fresh directory with real TF's and vfw's gfile, and every
step's result (or exception class and message) must agree."""

import os

import pytest

tf_real = pytest.importorskip("tensorflow")

import vfw.tensorflow as vtf  # noqa: E402


def _outcomes(gfile, scenario, directory):
    """The result of every step of ``scenario(gfile)`` run in ``directory``: values, or (exception class, text)."""
    os.makedirs(directory)
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        results = []
        for step in scenario(gfile):
            try:
                value = step()
                if isinstance(value, type(gfile.stat("."))):  # FileStatistics: compare its fields
                    value = (value.length, value.is_directory, value.mtime_nsec // 10 ** 9)
                results.append(value)
            except Exception as error:  # noqa: BLE001  (the exception is the compared outcome)
                results.append((type(error).__name__, str(error)))
        return results
    finally:
        os.chdir(cwd)


def _check(scenario, tmp_path):
    expected = _outcomes(tf_real.io.gfile, scenario, tmp_path / "tf")
    actual = _outcomes(vtf.io.gfile, scenario, tmp_path / "vfw")
    assert actual == expected


def _tree(g):
    """A small tree: d/{b/, c/, z.txt, a.txt}."""
    g.makedirs("d/b")
    g.mkdir("d/c")
    with g.GFile("d/z.txt", "w") as f:
        f.write("a\nbb\nccc")
    with g.GFile("d/a.txt", "wb") as f:
        f.write(b"x")


def test_namespace():
    public = sorted(n for n in dir(tf_real.io.gfile) if not n.startswith("_"))
    assert sorted(n for n in dir(vtf.io.gfile) if not n.startswith("_")) == public
    assert not hasattr(vtf, "gfile") and not hasattr(tf_real, "gfile")


def test_directories(tmp_path):
    def scenario(g):
        _tree(g)
        return [lambda: sorted(g.listdir("d")), lambda: sorted(g.listdir("d/")), lambda: g.listdir("d/b"),
                lambda: g.listdir("nope"), lambda: g.listdir("d/a.txt"), lambda: g.listdir(""),
                lambda: g.exists("d"), lambda: g.exists("d/z.txt"), lambda: g.exists("nope"),
                lambda: g.isdir("d"), lambda: g.isdir("d/z.txt"), lambda: g.isdir("nope"),
                lambda: g.mkdir("d"), lambda: g.mkdir("x/y"), lambda: g.makedirs("d/b"), lambda: g.makedirs("q/r/s"),
                lambda: g.isdir("q/r/s"), lambda: g.makedirs("d/a.txt/q"),
                lambda: g.rmtree("q"), lambda: g.exists("q"), lambda: g.rmtree("nope"),
                lambda: g.remove("nope"), lambda: g.remove("d/c"), lambda: g.remove("d/a.txt"),
                lambda: g.exists("d/a.txt"), lambda: g.stat("d/z.txt"), lambda: g.stat("d").is_directory,
                lambda: g.stat("nope"), lambda: g.exists(b"d"), lambda: g.isdir(tmp_path.__class__("d"))]
    _check(scenario, tmp_path)


def test_glob_and_walk(tmp_path):
    def scenario(g):
        _tree(g)
        sort = sorted
        return [lambda: sort(g.glob("d/*.txt")), lambda: sort(g.glob("d/*")), lambda: sort(g.glob("d*/*.txt")),
                lambda: sort(g.glob("?/b")), lambda: sort(g.glob(["d/a*", "d/z*"])), lambda: sort(g.glob("d/[az]*")),
                lambda: g.glob("d"), lambda: g.glob("nope/*"), lambda: g.glob(""),
                lambda: [(top, sort(dirs), sort(files)) for top, dirs, files in g.walk("d")],
                lambda: [(top, sort(dirs), sort(files)) for top, dirs, files in g.walk("d/", topdown=False)],
                lambda: list(g.walk("nope")), lambda: list(g.walk("d/a.txt")),
                lambda: g.join("a", "b", "/c"), lambda: g.join("a/", "b"), lambda: g.join(b"a", b"b")]
    _check(scenario, tmp_path)


def test_listing_order_is_the_directory_order(tmp_path):
    # TF lists entries as the directory stores them (not sorted): the same order os.listdir gives
    def scenario(g):
        _tree(g)
        return [lambda: g.listdir("d") == os.listdir("d"), lambda: [p[2:] for p in g.glob("d/*")] == os.listdir("d")]
    _check(scenario, tmp_path)


def test_rename_and_copy(tmp_path):
    def scenario(g):
        _tree(g)

        def read(path):
            return g.GFile(path).read()
        return [lambda: g.copy("d/a.txt", "d/a2.txt"), lambda: read("d/a2.txt"),
                lambda: g.copy("d/a.txt", "d/z.txt"), lambda: g.copy("d/a.txt", "d/z.txt", overwrite=True),
                lambda: read("d/z.txt"), lambda: g.copy("nope", "d/q"), lambda: g.copy("d/c", "d/q"),
                lambda: g.rename("nope", "d/q"), lambda: g.rename("d/a2.txt", "d/a.txt"),
                lambda: g.rename("d/a2.txt", "d/a.txt", overwrite=True), lambda: g.exists("d/a2.txt"),
                lambda: g.rename("d/c", "d/b"), lambda: g.rename("d/c", "d/b", overwrite=True),
                lambda: g.exists("d/c"), lambda: g.rename("d/b", "d/e"), lambda: g.isdir("d/e")]
    _check(scenario, tmp_path)


def test_gfile_reading(tmp_path):
    def scenario(g):
        _tree(g)
        f = g.GFile("d/z.txt")
        b = g.GFile("d/z.txt", "rb")
        return [lambda: (f.name, f.mode), lambda: f.read(2), lambda: f.tell(), lambda: f.readline(),
                lambda: f.readlines(), lambda: f.tell(), lambda: f.size(), lambda: f.seekable(),
                lambda: f.read(), lambda: f.seek(1), lambda: f.read(), lambda: f.seek(-1, 2), lambda: f.read(),
                lambda: f.seek(1, 1), lambda: f.seek(-1), lambda: f.seek(1, 3), lambda: f.seek(8),
                lambda: f.seek(offset=2), lambda: f.read(), lambda: f.write("x"), lambda: f.seek(0),
                lambda: list(f), lambda: f.seek(0), lambda: next(f), lambda: f.next(), lambda: f.read(-5),
                lambda: f.read(0), lambda: f.close(), lambda: f.read(), lambda: f.close(),
                lambda: b.readline(), lambda: b.readlines(), lambda: b.read(),
                lambda: g.GFile("nope").read(), lambda: g.GFile("nope").size(), lambda: g.GFile("d").read(),
                lambda: g.GFile("d/z.txt", "x"), lambda: g.GFile("d/z.txt", "rb+").read(1)]
    _check(scenario, tmp_path)


def test_gfile_writing(tmp_path):
    def scenario(g):
        os.mkdir("d")
        w = g.GFile("d/w.bin", "wb")
        t = g.GFile("d/u.txt", "w")
        n = g.GFile("d/n.txt", "w")
        return [lambda: g.exists("d/w.bin"), lambda: w.write(b"ab"), lambda: w.write("cd"), lambda: w.tell(),
                lambda: w.read(), lambda: w.seek(0), lambda: w.flush(), lambda: g.GFile("d/w.bin", "rb").read(),
                lambda: w.write(3), lambda: w.close(),
                lambda: g.GFile("d/w.bin", "a").write("ef"), lambda: g.GFile("d/w.bin", "rb").read(),
                lambda: t.write("é"), lambda: t.close(), lambda: g.GFile("d/u.txt").read(),
                lambda: g.GFile("d/u.txt").size(), lambda: g.GFile("d/u.txt", "rb").read(),
                lambda: g.GFile("d/u.txt").read(1), lambda: n.close(), lambda: g.exists("d/n.txt"),
                lambda: g.GFile("nope/q", "w").write("a"), lambda: g.GFile("d/w.bin", "r+").write("9"),
                lambda: g.GFile("d/w.bin").read()]
    _check(scenario, tmp_path)


def test_gfile_context_manager(tmp_path):
    def scenario(g):
        os.mkdir("d")

        def written():
            with g.GFile("d/c.txt", "w") as f:
                f.write("one\n")
                f.write("two\n")
            with g.GFile("d/c.txt", "a") as f:
                f.write("three")
            with g.GFile("d/c.txt") as f:
                return [line for line in f]
        return [written, lambda: g.stat("d/c.txt")]
    _check(scenario, tmp_path)
