"""ChannelsLastConvMaxPool: a channels-last convolution whose output only a max pool reads, batch slice by slice.

``Y = ChannelsLastMaxPool(ChannelsLastConv(X, W, B))`` computed a few images at a time: each slice's convolution
output (a few hundred KB) is pooled while it is still in cache, so the full-size convolution output is never
written to memory and read back (a CNN's first layer: 28x28 inputs, 32 channels, batch 64: 2.1 -> 1.4 ms).  The
attributes are ChannelsLastConv's (``dilations``, ``group``, ``pads``, ``strides``) and ChannelsLastMaxPool's with
a ``pool_`` prefix.  The gradient recomputes the convolution and chains the two ops' gradients.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.ops._channels_last import WINDOW_ATTRS
from vfw.core.ops._common import execute, positive
from vfw.core.ops._windows import bounded_cache
from vfw.core.ops.conv_channels_last import channels_last_conv_grads
from vfw.core.registry import Attr, TensorInfo, defop, get_schema, make_op

_SLICE_BYTES = 1 << 19
"""Im2col columns and convolution output per batch slice: 512 KB stay in L2 until the GEMM and then the pool read
them (smaller slices call the kernels more often, larger ones spill: 4 and 3 images on the first two layers of a
small CNN, 1.4 and 3.0 ms against 2.1 and 3.4 ms unfused)."""

_CONV_ATTRS = ("dilations", "group", "pads", "strides")
_POOL_ATTRS = {"pool_" + name: attr for name, attr in WINDOW_ATTRS.items()}
_POOL_ATTRS["pool_kernel_shape"] = Attr("ints", check=positive)
_POOL_ATTRS["pool_ties"] = Attr("string", "first", choices=("first", "all"))


def _split(attrs):
    """``(conv attrs, pool attrs)`` of the fused op's attributes."""
    conv = {name: attrs[name] for name in _CONV_ATTRS}
    pool = {name[len("pool_"):]: attrs[name] for name in _POOL_ATTRS}
    return conv, pool


def _infer(attrs, infos):
    conv, pool = _split(attrs)
    convolved = get_schema("ChannelsLastConv").infer(get_schema("ChannelsLastConv").bind_attrs(conv), infos)
    schema = get_schema("ChannelsLastMaxPool")
    return schema.infer(schema.bind_attrs(pool), convolved)


@defop("ChannelsLastConvMaxPool", inputs="X:T W:T B?:T", outputs="Y:T", types={"T": dt.FLOATS},
       attrs=dict(get_schema("ChannelsLastConv").attrs, **_POOL_ATTRS), infer=_infer)
def channels_last_conv_max_pool(dilations, group, pads, strides, pool_dilations, pool_kernel_shape, pool_pads,
                                pool_strides, pool_ties):
    """Max pool of the channels-last convolution of ``X (N, *D, C)`` by ``W (*K, C/group, M)`` (+ ``B``)."""
    conv = make_op("ChannelsLastConv", dict(dilations=dilations, group=group, pads=pads, strides=strides))
    pool = make_op("ChannelsLastMaxPool", dict(dilations=pool_dilations, kernel_shape=pool_kernel_shape,
                                                pads=pool_pads, strides=pool_strides, ties=pool_ties))

    shapes = {}

    def kernel(x, w, b=None, out=None):
        key = (x.shape, w.shape, x.dtype)
        if key not in shapes:
            bounded_cache(shapes)
            infos = [TensorInfo(x.shape, x.dtype), TensorInfo(w.shape, w.dtype)]
            convolved = conv.schema.infer(conv.attrs, infos)
            shapes[key] = (convolved[0].shape, pool.schema.infer(pool.attrs, convolved)[0].shape)
        conv_shape, pooled_shape = shapes[key]
        n = x.shape[0]
        group = conv.attrs["group"]
        per_image = int(np.prod(conv_shape[1:])) + int(np.prod(conv_shape[1:-1])) * int(np.prod(w.shape[:-1])) * group
        step = max(1, _SLICE_BYTES // max(x.dtype.itemsize * per_image, 1))
        buffer = np.empty((min(step, n),) + conv_shape[1:], x.dtype)
        y = out if out is not None and out.shape == pooled_shape and out.dtype == x.dtype \
            else np.empty(pooled_shape, x.dtype)
        for start in range(0, n, step):
            part = x[start:start + step]
            convolved = conv(part, w, b, out=buffer[:len(part)])
            pool(convolved, out=y[start:start + len(part)])
        return y

    return kernel


@register_gradient("ChannelsLastConvMaxPool")
def _conv_max_pool_grad(node, g):
    conv, pool = _split(node.attrs)
    inputs = [x for x in node.inputs if x is not None]
    convolved = execute("ChannelsLastConv", *inputs, **conv)
    dy = execute("ChannelsLastMaxPoolGrad", convolved, node.output(0), g, **pool)
    return channels_last_conv_grads(node.inputs, node.needs_input_grad, dy, conv)
