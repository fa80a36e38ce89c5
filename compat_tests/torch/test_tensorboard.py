"""torch.utils.tensorboard.SummaryWriter of vfw vs torch 2.13: both write the same calls, real TF's reader reads
both back, and tags, steps, scalars, histograms (buckets), image sizes and pixels, text and hparams must agree."""

import glob
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
torch = pytest.importorskip("torch")
rtf = pytest.importorskip("tensorflow")
pytest.importorskip("tensorboard")
import vfw.torch as vtorch  # noqa: E402
from google.protobuf import json_format  # noqa: E402
from tensorboard.plugins.hparams import plugin_data_pb2  # noqa: E402
from torch.utils.tensorboard import SummaryWriter as TorchWriter  # noqa: E402
from vfw.torch.utils.tensorboard import SummaryWriter as VfwWriter  # noqa: E402


def _read(logdir):
    """{run (relative dir; hparams' timestamped dir as "<time>"): [(step, tag, kind, content)]}."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(logdir, "**", "events.out.tfevents.*"), recursive=True)):
        run = os.path.relpath(os.path.dirname(path), logdir)
        run = "<time>" if run.replace(".", "").isdigit() else run
        events = list(rtf.compat.v1.train.summary_iterator(path))
        assert events[0].file_version == "brain.Event:2"
        records = []
        for event in events[1:]:
            if event.HasField("session_log"):
                records.append((event.step, "session_log", event.session_log.status))
            for value in event.summary.value:
                kind = value.WhichOneof("value")
                if kind == "image":
                    pixels = rtf.io.decode_png(value.image.encoded_image_string).numpy()
                    content = (value.image.height, value.image.width, value.image.colorspace, pixels.tolist())
                elif kind == "tensor":
                    content = rtf.make_ndarray(value.tensor).tolist()
                elif kind == "histo":
                    h = value.histo
                    content = (h.min, h.max, h.num, h.sum, h.sum_squares, list(h.bucket_limit), list(h.bucket))
                elif kind == "simple_value":
                    content = value.simple_value
                else:
                    content = None
                metadata = value.metadata.plugin_data
                plugin_content = metadata.content
                if metadata.plugin_name == "hparams":  # parsed: map entries have no fixed order on the wire
                    plugin_content = json_format.MessageToDict(
                        plugin_data_pb2.HParamsPluginData.FromString(plugin_content))
                records.append((event.step, value.tag, kind, content, metadata.plugin_name, plugin_content))
        runs.setdefault(run, []).extend(records)
    return runs


def _both(tmp_path, program, **kwargs):
    out = []
    for name, writer_class, lib in (("real", TorchWriter, torch), ("vfw", VfwWriter, vtorch)):
        logdir = str(tmp_path / name)
        with writer_class(logdir, **kwargs) as writer:
            program(writer, lib)
        out.append(_read(logdir))
    assert out[0] == out[1]
    return out[0]


def test_scalars_histograms_text(tmp_path):
    rng = np.random.default_rng(0)
    values = rng.normal(size=200).astype(np.float32)

    def program(writer, lib):
        writer.add_scalar("loss", 0.5, 1)
        writer.add_scalar("loss", lib.tensor(0.25), 2)
        writer.add_scalar("new", 1.5, 3, new_style=True)
        writer.add_scalars("run", {"a": 1.0, "b": 2.0}, 4)
        writer.add_histogram("h", lib.tensor(values), 5)
        writer.add_histogram("positive", np.array([1.0, 2.0, 3.0]), 6)
        writer.add_histogram("auto", values, 7, bins="auto")
        writer.add_histogram("merged", values, 7, bins=np.linspace(-3, 3, 23), max_bins=5)
        writer.add_text("note", "hello world", 8)
        writer.add_hparams({"lr": 0.1, "bs": 4, "opt": "sgd", "nesterov": True}, {"hp/acc": 0.5})

    runs = _both(tmp_path, program, purge_step=2)
    assert sorted(runs) == [".", "<time>", "run_a", "run_b"]


def test_images(tmp_path):
    rng = np.random.default_rng(1)
    chw = rng.uniform(-0.1, 1.1, size=(3, 4, 5)).astype(np.float32)
    hwc = rng.integers(0, 256, size=(6, 3, 4)).astype(np.uint8)
    gray = rng.uniform(size=(5, 7)).astype(np.float32)
    batch = rng.uniform(size=(10, 1, 3, 2)).astype(np.float32)

    def program(writer, lib):
        writer.add_image("chw", lib.tensor(chw), 1)
        writer.add_image("hwc", hwc, 2, dataformats="HWC")
        writer.add_image("gray", gray, 3, dataformats="HW")
        writer.add_images("batch", lib.tensor(batch), 4)
        writer.add_images("nhwc", batch.transpose(0, 2, 3, 1)[:3], 5, dataformats="NHWC")

    _both(tmp_path, program)


def test_default_log_dir_and_file_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = VfwWriter(comment="_exp", filename_suffix=".sfx")
    writer.close()
    (run,) = os.listdir(tmp_path / "runs")
    assert run.endswith("_exp") and writer.get_logdir() == os.path.join("runs", run)
    (name,) = os.listdir(tmp_path / "runs" / run)
    assert name.startswith("events.out.tfevents.") and name.endswith(".sfx")
