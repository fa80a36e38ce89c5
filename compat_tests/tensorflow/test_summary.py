"""tf.summary and tf.io PNG ops of vfw vs real TensorFlow 2.21: both write event files, real TF's reader reads
both back, and tags, steps, plugins, tensors, histogram buckets and image pixels must agree."""

import glob
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
rtf = pytest.importorskip("tensorflow")
pytest.importorskip("tensorboard")

import vfw.tensorflow as vtf  # noqa: E402


def _events(logdir):
    files = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    assert len(files) == 1, files
    assert files[0].endswith(".v2")
    return list(rtf.compat.v1.train.summary_iterator(files[0]))


def _summaries(events):
    """[(step, tag, plugin, value)] with tensors decoded by real TF; PNG images decoded to pixels."""
    out = []
    for event in events[1:]:
        for value in event.summary.value:
            array = rtf.make_ndarray(value.tensor)
            plugin = value.metadata.plugin_data.plugin_name
            if plugin == "images":
                array = [array[0], array[1]] + [rtf.io.decode_png(b).numpy() for b in array[2:]]
            out.append((event.step, value.tag, plugin, value.metadata.summary_description, array))
    return out


def _run_both(tmp_path, program):
    results = []
    for name, tf in (("real", rtf), ("vfw", vtf)):
        logdir = str(tmp_path / name)
        writer = tf.summary.create_file_writer(logdir)
        program(tf, writer)
        writer.close()
        events = _events(logdir)
        assert events[0].file_version == "brain.Event:2"
        results.append(_summaries(events))
    expected, got = results
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        assert e[:4] == g[:4]
        if isinstance(e[4], list):
            assert len(e[4]) == len(g[4])
            for a, b in zip(e[4], g[4]):
                np.testing.assert_array_equal(b, a)
        else:
            assert e[4].dtype == g[4].dtype and e[4].shape == g[4].shape
            np.testing.assert_array_equal(g[4], e[4])
    return expected


def test_scalar_histogram_text(tmp_path):
    rng = np.random.default_rng(0)
    data = rng.normal(size=(7, 5)).astype(np.float32)

    def program(tf, writer):
        with writer.as_default():
            tf.summary.scalar("loss", 0.25, step=1, description="the loss")
            tf.summary.scalar("loss", tf.constant(3), step=2)
            tf.summary.histogram("weights", data, step=3)
            tf.summary.histogram("few", data, step=4, buckets=4)
            tf.summary.histogram("ints", tf.constant([1, 2, 2, 9]), step=4, buckets=3)
            tf.summary.histogram("single", [5.0, 5.0], step=5, buckets=3)
            tf.summary.histogram("empty", np.zeros([0], np.float32), step=5, buckets=2)
            tf.summary.histogram("none", [1.0, 2.0], step=5, buckets=0)
            tf.summary.text("note", "hello", step=6)
            tf.summary.text("notes", ["a", "bc"], step=6)
            tf.summary.write("raw", tf.constant([[1, 2]], tf.int64), step=7)

    out = _run_both(tmp_path, program)
    assert [o[1] for o in out][:2] == ["loss", "loss"]


def test_image(tmp_path):
    rng = np.random.default_rng(1)
    floats = rng.uniform(-0.2, 1.2, size=(4, 5, 3, 3)).astype(np.float32)
    gray = rng.integers(0, 256, size=(2, 4, 6, 1)).astype(np.uint8)
    rgba = rng.integers(0, 256, size=(1, 3, 2, 4)).astype(np.uint8)

    def program(tf, writer):
        with writer.as_default(step=2):
            tf.summary.image("floats", floats)
            tf.summary.image("gray", gray, max_outputs=5)
            tf.summary.image("rgba", rgba, step=9)

    _run_both(tmp_path, program)


def test_step_semantics_and_record_if(tmp_path):
    def program(tf, writer):
        results = [bool(tf.summary.scalar("x", 1.0, step=1))]  # no default writer: False
        with writer.as_default():
            with pytest.raises(ValueError):
                tf.summary.scalar("x", 1.0)
            tf.summary.experimental.set_step(5)
            results.append(tf.summary.experimental.get_step())
            results.append(bool(tf.summary.should_record_summaries()))
            tf.summary.scalar("a", 1.0)
            with tf.summary.record_if(False):
                results.append(bool(tf.summary.scalar("b", 2.0)))
                results.append(bool(tf.summary.should_record_summaries()))
            with tf.summary.record_if(lambda: True):
                tf.summary.scalar("c", 3.0, step=7)
            step = tf.Variable(10, dtype=tf.int64)
            tf.summary.experimental.set_step(step)
            tf.summary.scalar("d", 4.0)
            step.assign_add(1)
            tf.summary.scalar("d", 5.0)
            tf.summary.experimental.set_step(None)
        results.append(bool(tf.summary.should_record_summaries()))
        with tf.summary.create_noop_writer().as_default():
            results.append(bool(tf.summary.scalar("n", 1.0, step=1)))
        program.results.append(results)

    program.results = []
    _run_both(tmp_path, program)
    assert program.results[0] == program.results[1]


def test_inside_tf_function(tmp_path):
    def program(tf, writer):
        step = tf.Variable(0, dtype=tf.int64)

        @tf.function
        def train(x):
            with writer.as_default():
                tf.summary.scalar("x", tf.reduce_sum(x), step=step)
                tf.summary.histogram("h", x, step=step, buckets=3)
            step.assign_add(1)
            return x * 2

        for i in range(3):
            train(tf.constant([1.0, float(i), 3.0]))

    out = _run_both(tmp_path, program)
    assert [o[0] for o in out] == [0, 0, 1, 1, 2, 2]


@pytest.mark.parametrize("shape, dtype", [((5, 7, 3), np.uint8), ((9, 4, 1), np.uint8), ((6, 6, 4), np.uint16),
                                          ((3, 11, 2), np.uint8), ((33, 20, 3), np.uint16)])
def test_png_round_trip_and_tf_bytes(shape, dtype):
    rng = np.random.default_rng(2)
    image = rng.integers(0, np.iinfo(dtype).max + 1, size=shape).astype(dtype)
    image[::4] = image[0]  # repeated rows make libpng choose several filters
    tf_dtype = vtf.uint16 if dtype == np.uint16 else vtf.uint8
    ours = vtf.io.encode_png(image)
    np.testing.assert_array_equal(vtf.io.decode_png(ours, dtype=tf_dtype).numpy(), image)
    np.testing.assert_array_equal(rtf.io.decode_png(ours.numpy(), dtype=rtf.as_dtype(dtype)).numpy(), image)
    theirs = rtf.io.encode_png(image).numpy()
    for channels in (0, 3, 4):
        for out_dtype in ("uint8", "uint16"):
            expected = rtf.io.decode_png(theirs, channels=channels, dtype=getattr(rtf, out_dtype)).numpy()
            got = vtf.io.decode_png(theirs, channels=channels, dtype=getattr(vtf, out_dtype)).numpy()
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(vtf.io.decode_image(theirs, dtype=vtf.float32).numpy(),
                                  rtf.io.decode_image(theirs, dtype=rtf.float32).numpy())


def test_png_errors():
    with pytest.raises(vtf.errors.InvalidArgumentError):
        vtf.io.decode_png(b"not a png")
    with pytest.raises(rtf.errors.InvalidArgumentError):
        rtf.io.decode_png(b"not a png")
    with pytest.raises(TypeError):
        vtf.io.encode_png(np.zeros((2, 2, 1), np.float32))


def test_name_scope_prefixes_summary_tags(tmp_path):
    def program(tf, writer):
        with writer.as_default(step=1), tf.name_scope("outer"), tf.name_scope("inner"):
            tf.summary.scalar("x", 1.0)
            tf.summary.write("raw", 2.0)  # write takes its tag as given
            tf.summary.histogram("h", [1.0, 4.0], buckets=2)
            tf.summary.text("t", "s")

    tags = [o[1] for o in _run_both(tmp_path, program)]
    assert tags == ["outer/inner/x", "raw", "outer/inner/h", "outer/inner/t"]


def test_audio(tmp_path):
    rng = np.random.default_rng(3)
    clips = rng.uniform(-1.3, 1.3, size=(4, 50, 2)).astype(np.float32)
    clips[0, :6, 0] = [0.5, -1.0, 1.0, 1 / 65536, -1 / 65536, 3 / 65536]  # halves and the clipping ends

    def program(tf, writer):
        with writer.as_default(step=4):
            tf.summary.audio("clip", clips, 8000, max_outputs=3, description="sound")

    out = _run_both(tmp_path, program)  # the WAV bytes themselves are compared
    assert out[0][4].shape == (3, 2)


def _interlaced_png(image):
    """An Adam7-interlaced 8-bit RGB/RGBA PNG of ``image``, each pass's rows with filter 1 (Sub), written here
    (PIL writes no interlaced PNGs); real TF decodes it as the reference."""
    import struct
    import zlib

    height, width, channels = image.shape
    passes = [(0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2), (1, 0, 2, 1)]
    raw = b""
    for row0, col0, row_step, col_step in passes:
        sub = image[row0::row_step, col0::col_step].astype(np.int16)
        if sub.size:
            left = np.concatenate([np.zeros_like(sub[:, :1]), sub[:, :-1]], axis=1)
            filtered = ((sub - left) % 256).astype(np.uint8).reshape(sub.shape[0], -1)
            raw += np.concatenate([np.ones((sub.shape[0], 1), np.uint8), filtered], axis=1).tobytes()

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, {3: 2, 4: 6}[channels], 0, 0, 1)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def _pil_png(array, mode=None, quantize=None, transparency=None):
    import io

    image_module = pytest.importorskip("PIL.Image")
    picture = image_module.fromarray(array, mode) if mode else image_module.fromarray(array)
    if quantize:
        picture = picture.quantize(quantize)
    buffer = io.BytesIO()
    picture.save(buffer, "PNG", **({} if transparency is None else {"transparency": transparency}))
    return buffer.getvalue()


@pytest.mark.parametrize("variant", ["palette", "palette_alpha", "gray_1bit", "gray_alpha", "interlaced",
                                     "interlaced_rgba"])
def test_decode_png_variants_like_tf(variant):
    rng = np.random.default_rng(4)
    rgb = rng.integers(0, 256, size=(13, 10, 3)).astype(np.uint8)
    data = {
        "palette": lambda: _pil_png(rgb, quantize=7),
        "palette_alpha": lambda: _pil_png(rgb, quantize=7, transparency=bytes([0, 128, 255, 30])),
        "gray_1bit": lambda: _pil_png(rng.integers(0, 2, size=(7, 11)).astype(bool)),
        "gray_alpha": lambda: _pil_png(rng.integers(0, 256, size=(5, 6, 2)).astype(np.uint8), "LA"),
        "interlaced": lambda: _interlaced_png(rgb),
        "interlaced_rgba": lambda: _interlaced_png(rng.integers(0, 256, size=(9, 17, 4)).astype(np.uint8)),
    }[variant]()
    for channels in (0, 3, 4):
        expected = rtf.io.decode_png(data, channels=channels).numpy()
        np.testing.assert_array_equal(vtf.io.decode_png(data, channels=channels).numpy(), expected)
