"""``HistogramObserver``: the activation observer of torch's default post-training configurations.

It keeps a histogram (``bins`` bins, float32 counts) of everything it saw over the running ``[min, max]``; when the
range grows, the old histogram is spread over the new bins (each old bin cut into 16 equal parts, each part moved to
the new bin holding its middle).  ``calculate_qparams`` then narrows the range by torch's greedy search: step the
lower and upper quantiles inward by ``1e-5`` (whichever side drops more bins), stop as soon as the L2 error of
quantizing the histogram's uniform bins into ``2 ** bits`` levels over the narrowed range grows, and hand the
narrowed range to the min/max rule.  The arithmetic keeps torch's precisions (float32 tensors, Python-float steps).
"""

import bisect

import numpy as np

import vfw.frontends.torch as torch
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _quantized
from vfw.frontends.torch.ao.quantization.observer import _EPS, _PER_TENSOR, UniformQuantizationObserverBase

__all__ = ["HistogramObserver"]

_F32 = np.float32
_BITS = {_quantized.quint8: 8, _quantized.qint8: 8, _quantized.qint32: 32, _quantized.quint4x2: 8,
         torch.uint8: 8, torch.int8: 8, torch.int16: 16, torch.int32: 32, torch.uint16: 16}


class HistogramObserver(UniformQuantizationObserverBase):
    """Quantization parameters from a running histogram, with outliers cut by an L2-error search.

    Parameters
    ----------
    bins : int
        Number of histogram bins (2048).
    dtype, qscheme, reduce_range, quant_min, quant_max, eps
        As :class:`MinMaxObserver` (per-tensor schemes only).
    """

    def __init__(self, bins=2048, dtype=_quantized.quint8, qscheme=_quantized.per_tensor_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        if qscheme not in _PER_TENSOR:
            raise NotImplementedError("HistogramObserver's qscheme only support torch.per_tensor_symmetric "
                                      "                    and torch.per_tensor_affine.")
        if is_dynamic:
            raise NotImplementedError("HistogramObserver doesn't support dynamic quantization")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.bins = bins
        self.register_buffer("histogram", torch.zeros(bins))
        self.register_buffer("min_val", torch.tensor(float("inf")))
        self.register_buffer("max_val", torch.tensor(float("-inf")))
        self.dst_nbins = 2 ** _BITS[dtype]
        self.upsample_rate = 16

    # -- recording ---------------------------------------------------------------------------
    def forward(self, x_orig):
        """Add ``x_orig`` (infinities ignored) to the histogram; returns ``x_orig``."""
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()
        x_min, x_max = torch.aminmax(x)
        if float(x_min) == float("-inf") or float(x_max) == float("inf"):
            warn_for_user("torch.inf detected in input tensor, ignoring input")
            x = x[x.abs() != float("inf")]
            if x.numel() == 0:
                return x_orig
            x_min, x_max = torch.aminmax(x)
        if float(self.min_val) == float("inf") or float(self.max_val) == float("-inf"):
            self._store(torch.histc(x, self.bins, min=float(x_min), max=float(x_max)), x_min, x_max)
            return x_orig
        old_min, old_max = self.min_val.clone(), self.max_val.clone()
        new_min, new_max = torch.minimum(old_min, x_min), torch.maximum(old_max, x_max)
        update = torch.histc(x, self.bins, min=float(new_min), max=float(new_max))
        if float(new_min) == float(old_min) and float(new_max) == float(old_max):
            self.histogram.copy_(self.histogram + update)
            return x_orig
        if float(old_min) == float(old_max):  # everything so far was one value: it lands in one new bin
            moved = torch.histc(old_min, self.bins, min=float(new_min), max=float(new_max)) * torch.sum(self.histogram)
        else:
            moved = self._upscaled(old_min, old_max, new_min, new_max)
        self._store(update + moved, new_min, new_max)
        return x_orig

    def _store(self, histogram, low, high):
        self.histogram.copy_(histogram)
        self.min_val.copy_(low)
        self.max_val.copy_(high)

    def _upscaled(self, old_min, old_max, new_min, new_max):
        """The histogram over ``[old_min, old_max]`` re-binned over ``[new_min, new_max]``."""
        parts = self.bins * self.upsample_rate
        weights = torch.repeat_interleave(self.histogram, self.upsample_rate) / self.upsample_rate
        part_width = (old_max - old_min) / parts
        middles = torch.linspace(float(old_min), float(old_max), parts + 1)[:-1] + 0.5 * part_width
        edges = torch.linspace(float(new_min), float(new_max), self.bins + 1)
        target = torch.clamp(torch.bucketize(middles, edges, right=True) - 1, 0, self.bins - 1)
        return torch.bincount(target, weights=weights, minlength=self.bins)

    # -- the search ----------------------------------------------------------------------------
    def _quantization_error(self, start_bin, end_bin):
        """L2 error of quantizing the histogram (uniform within bins) over bins ``start_bin..end_bin``."""
        bin_width = (float(self.max_val) - float(self.min_val)) / self.bins
        dst_width = bin_width * (end_bin - start_bin + 1) / self.dst_nbins
        if dst_width == 0.0:
            return 0.0
        width32, dst32, half = _F32(bin_width), _F32(dst_width), _F32(dst_width / 2)
        begin = (np.arange(self.bins) - start_bin).astype(_F32) * width32
        end = begin + width32
        last = _F32(self.dst_nbins - 1)
        begin_bin = np.clip(np.floor_divide(begin, dst32), _F32(0), last)
        end_bin_of = np.clip(np.floor_divide(end, dst32), _F32(0), last)
        density = self.histogram.numpy() / width32

        def norm(low, high):
            return density * ((high * high * high - low * low * low) / _F32(3))

        error = norm(begin - (begin_bin + _F32(0.5)) * dst32, np.full(self.bins, half, _F32))
        error = error + (end_bin_of - begin_bin - _F32(1)) * norm(-half, half)
        error = error + norm(-half, end - (end_bin_of * dst32 + half))
        return float(error.sum(dtype=_F32))

    def _non_linear_param_search(self):
        """The narrowed ``(min, max)``: 0-d float32 tensors."""
        cumulative = np.cumsum(self.histogram.numpy(), dtype=np.float64).astype(_F32).tolist()
        total = float(self.histogram.numpy().sum(dtype=_F32))
        alpha, beta, step = 0.0, 1.0, 1e-5
        start_bin, end_bin = 0, self.bins - 1
        norm_min = float("inf")
        while alpha < beta:
            next_alpha, next_beta = alpha + step, beta - step
            # Comparisons of float32 cumulative counts with a Python number happen in float32.
            low_threshold, high_threshold = float(_F32(next_alpha * total)), float(_F32(next_beta * total))
            left = bisect.bisect_left(cumulative, low_threshold, start_bin, end_bin)
            right = max(start_bin, bisect.bisect_right(cumulative, high_threshold, start_bin, end_bin + 1) - 1)
            next_start, next_end = start_bin, end_bin
            if left - start_bin > end_bin - right:
                next_start, alpha = left, next_alpha
            else:
                next_end, beta = right, next_beta
            if next_start == start_bin and next_end == end_bin:
                continue
            error = self._quantization_error(next_start, next_end)
            if error > norm_min:
                break
            norm_min, start_bin, end_bin = error, next_start, next_end
        bin_width = (self.max_val - self.min_val) / self.bins
        return self.min_val + bin_width * start_bin, self.min_val + bin_width * (end_bin + 1)

    def calculate_qparams(self):
        """``(scale, zero_point)`` of the searched range (1-element tensors)."""
        if float(self.min_val) == float("inf") and float(self.max_val) == float("-inf"):
            warn_for_user("must run observer before calling calculate_qparams.                                    "
                          "Returning default scale and zero point ")
            return torch.tensor([1.0]), torch.tensor([0])
        assert self.bins == len(self.histogram), ("The number of bins in histogram should be equal to the number of "
                                                  "bins supplied while making this observer")
        return self._calculate_qparams(*self._non_linear_param_search())

    def extra_repr(self):
        return f"min_val={float(self.min_val)}, max_val={float(self.max_val)}"
