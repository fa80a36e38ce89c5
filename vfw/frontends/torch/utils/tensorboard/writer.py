"""``torch.utils.tensorboard.SummaryWriter``: scalars, histograms, images, text and hparams in TensorBoard event
files, written as torch 2.13 writes them (legacy ``simple_value`` scalars, ``HistogramProto`` histograms over
TF1's exponential bucket limits, ``Summary.Image`` PNGs)."""

import datetime
import math
import os
import socket
import time

import numpy as np

from vfw.io import png
from vfw.io.tensorboard import event_file, histograms, protos

_SOURCE = "tensorboard.summary.writer.event_file_writer"
_NUMBER, _STRING = 3, 1  # hparams DataType FLOAT64 and STRING (bools are numbers, as torch writes them)


def _numpy(value):
    """A numpy array of a tensor (vfw torch's ``.array``), array or Python value."""
    return np.asarray(getattr(value, "array", value))


def _to_hwc(image, dataformats):
    """``image`` in ``dataformats`` ("CHW", "HWC", "HW", "NCHW", "NHWC"...) as ``[H, W, C]`` with C 3 or 4
    (grayscale repeated to RGB; batches laid out in a grid of up to 8 columns)."""
    dataformats = dataformats.upper()
    if len(set(dataformats)) != len(dataformats) or image.ndim != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different. tensor shape: {image.shape}, "
                             f"input_format: {dataformats}")
    if image.ndim == 4:
        batch = image.transpose([dataformats.index(c) for c in "NCHW"])
        if batch.shape[1] == 1:
            batch = np.concatenate([batch] * 3, axis=1)
        count, channels, height, width = batch.shape
        columns = min(count, 8)
        rows = math.ceil(count / columns)
        grid = np.zeros((channels, height * rows, width * columns), batch.dtype)
        padded = np.concatenate([batch, np.zeros((rows * columns - count,) + batch.shape[1:], batch.dtype)])
        grid[:] = padded.reshape(rows, columns, channels, height, width).transpose(2, 0, 3, 1, 4).reshape(grid.shape)
        return grid.transpose(1, 2, 0)
    if image.ndim == 3:
        hwc = image.transpose([dataformats.index(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, axis=2) if hwc.shape[2] == 1 else hwc
    hw = image.transpose([dataformats.index(c) for c in "HW"])
    return np.stack([hw] * 3, axis=2)


def _image_value(tag, image, dataformats):
    pixels = _to_hwc(_numpy(image), dataformats)
    scale = 1 if pixels.dtype == np.uint8 else 255  # torch scales non-uint8 images from [0, 1]
    pixels = (pixels.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    height, width, channels = pixels.shape
    return protos.Summary.Value(tag=tag, image=protos.Summary.Image(
        height=height, width=width, colorspace=channels, encoded_image_string=png.encode(pixels)))


class SummaryWriter:
    """Writes TensorBoard event files to ``log_dir``.

    Parameters
    ----------
    log_dir : str, optional
        Default ``runs/<Mon><day>_<HH-MM-SS>_<hostname><comment>``.
    comment : str
        Appended to the default ``log_dir`` (ignored when ``log_dir`` is given).
    purge_step : int, optional
        Writes a SessionLog START at this step, so TensorBoard drops events of a crashed run at or after it.
    max_queue : int
        Pending events that trigger a write to disk.
    flush_secs : float
        Seconds between writes to disk.
    filename_suffix : str
        Appended to the event file names.
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        if not log_dir:
            stamp = datetime.datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = os.fspath(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = None
        self.all_writers = {}
        self._get_file_writer()

    def _new_writer(self, logdir):
        return event_file.EventFileWriter(logdir, filename_suffix=self.filename_suffix, max_queue=self.max_queue,
                                          flush_secs=self.flush_secs, source_writer=_SOURCE)

    def _get_file_writer(self):
        if self.file_writer is None:
            self.file_writer = self._new_writer(self.log_dir)
            self.all_writers = {self.log_dir: self.file_writer}
            if self.purge_step is not None:
                self.file_writer.add_event(protos.Event(step=self.purge_step, wall_time=time.time(),
                                                        session_log=protos.SessionLog(status=1)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        """The directory event files are written to."""
        return self.log_dir

    def _add(self, value, global_step, walltime, writer=None):
        (writer or self._get_file_writer()).add_summary(protos.Summary(value=[value]), global_step, walltime)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Write one scalar (a legacy ``simple_value``; ``new_style``: a float tensor for the scalars plugin)."""
        value = float(_numpy(scalar_value).reshape(()))
        if new_style:
            array = np.array(value, np.float64 if double_precision else np.float32)
            summary_value = protos.Summary.Value(tag=tag, tensor=protos.tensor_proto(array),
                                                 metadata=protos.plugin_metadata("scalars"))
        else:
            summary_value = protos.Summary.Value(tag=tag, simple_value=value)
        self._add(summary_value, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Write scalars under ``main_tag``, each in its own run ``<log_dir>/<main_tag>_<tag>``."""
        walltime = time.time() if walltime is None else walltime
        for tag, scalar_value in tag_scalar_dict.items():
            run_dir = os.path.join(self._get_file_writer().logdir, main_tag.replace("/", "_") + "_" + tag)
            if run_dir not in self.all_writers:
                self.all_writers[run_dir] = self._new_writer(run_dir)
            value = protos.Summary.Value(tag=main_tag, simple_value=float(_numpy(scalar_value).reshape(())))
            self._add(value, global_step, walltime, self.all_writers[run_dir])

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """Write the histogram of ``values`` (``bins="tensorflow"``: TF1's exponential bucket limits)."""
        histogram = histograms.torch_histogram(_numpy(values), bins, max_bins)
        self._add(protos.Summary.Value(tag=tag, histo=histogram), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """Write an image (float in [0, 1] or uint8; ``dataformats`` CHW, HWC or HW)."""
        self._add(_image_value(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """Write a batch of images as one grid image (up to 8 per row)."""
        self._add(_image_value(tag, img_tensor, dataformats), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Write text (tag ``<tag>/text_summary``, TensorBoard's text plugin)."""
        value = protos.Summary.Value(tag=tag + "/text_summary", metadata=protos.plugin_metadata("text"),
                                     tensor=protos.tensor_proto(np.array([text_string.encode()], object)))
        self._add(value, global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        """Write an hparams session (experiment, start and end info) and ``metric_dict``'s scalars in the run
        ``<log_dir>/<run_name or time>``.

        Raises
        ------
        TypeError
            When ``hparam_dict`` or ``metric_dict`` is not a dict.
        NotImplementedError
            For ``hparam_domain_discrete`` (not supported by vfw).
        """
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        if hparam_domain_discrete:
            raise NotImplementedError("add_hparams: hparam_domain_discrete is not supported by vfw")
        infos, entries = [], []
        for name, value in hparam_dict.items():
            value = _numpy(value).item() if hasattr(value, "array") else value
            if value is None:
                continue
            if isinstance(value, (int, float)):
                kind, hparam = _NUMBER, protos.HParamValue(number_value=float(value))
            elif isinstance(value, str):
                kind, hparam = _STRING, protos.HParamValue(string_value=value)
            else:
                raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
            infos.append(protos.HParamInfo(name=name, type=kind))
            entries.append(protos.SessionStartInfo.HparamsEntry(key=name, value=hparam))
        experiment = protos.Experiment(hparam_infos=infos, metric_infos=[
            protos.MetricInfo(name=protos.MetricName(tag=tag)) for tag in metric_dict])
        run_dir = os.path.join(self._get_file_writer().logdir, run_name or str(time.time()))
        with SummaryWriter(log_dir=run_dir) as run:
            for tag, data in (("experiment", protos.HParamsPluginData(experiment=experiment)),
                              ("session_start_info", protos.HParamsPluginData(
                                  session_start_info=protos.SessionStartInfo(hparams=entries))),
                              ("session_end_info", protos.HParamsPluginData(
                                  session_end_info=protos.SessionEndInfo(status=1)))):
                run._add(protos.Summary.Value(tag=f"_hparams_/{tag}", metadata=protos.plugin_metadata(
                    "hparams", content=data.SerializeToString())), None, None)
            for tag, value in metric_dict.items():
                run.add_scalar(tag, value, global_step)

    def flush(self):
        """Write pending events of every run to disk."""
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        """Flush and close every run's file; a later add opens a new file."""
        for writer in self.all_writers.values():
            writer.close()
        self.file_writer = None
        self.all_writers = {}

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
