"""vfw.torch core against real torch: creation, dtypes and promotion, tensor properties, autograd API."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt


@pytest.mark.parametrize("data", [[1, 2, 3], [1.5, 2], [True, False], [[1, 2], [3, 4]], 3, 2.5, True, [],
                                  [[1.0], [2.0]], [1, 2.5, True], np.float64(1.5), [np.int32(3)],
                                  [[1, 2], [3]], "abc", None])
def test_tensor_infers_dtype(data):
    check(lambda torch: torch.tensor(data))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8",
                                   "bool"])
def test_dtype_properties(dtype):
    check(lambda torch: (getattr(torch, dtype).is_floating_point, getattr(torch, dtype).is_signed,
                         getattr(torch, dtype).itemsize, str(getattr(torch, dtype))))


PROMOTION_DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("a", PROMOTION_DTYPES)
@pytest.mark.parametrize("b", PROMOTION_DTYPES)
def test_promote_types(a, b):
    check(lambda torch: torch.promote_types(getattr(torch, a), getattr(torch, b)))


@pytest.mark.parametrize("dtype", PROMOTION_DTYPES)
@pytest.mark.parametrize("other", [1, 2.5, True, "dim_f64", "zero_f64", "zero_i64", "zero_bool", "dim_i32"])
def test_result_type_with_scalars_and_zero_dim_tensors(dtype, other):
    def fn(torch):
        x = torch.ones(2, dtype=getattr(torch, dtype))
        if isinstance(other, str):
            kind, dt = other.split("_")
            dt = {"f64": torch.float64, "i64": torch.int64, "bool": torch.bool, "i32": torch.int32}[dt]
            o = torch.ones(2, dtype=dt) if kind == "dim" else torch.tensor(1, dtype=dt)
        else:
            o = other
        return torch.result_type(x, o), torch.result_type(o, x)
    check(fn)


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_default_dtype(default):
    def fn(torch):
        prev = torch.get_default_dtype()
        torch.set_default_dtype(getattr(torch, default))
        try:
            return (torch.tensor([1.5]), torch.zeros(2), torch.arange(0.0, 1.0, 0.25), torch.get_default_dtype(),
                    torch.result_type(torch.tensor([1, 2]), 2.5))
        finally:
            torch.set_default_dtype(prev)
    check(fn)


@pytest.mark.parametrize("fn", [
    lambda torch: torch.zeros(2, 3),
    lambda torch: torch.zeros((2, 3), dtype=torch.int32),
    lambda torch: torch.ones([4]),
    lambda torch: torch.ones(0, 2),
    lambda torch: torch.full((2, 2), 7),
    lambda torch: torch.full((2, 2), 7.5),
    lambda torch: torch.full((2,), True),
    lambda torch: torch.full((2,), 3, dtype=torch.float64),
    lambda torch: torch.arange(5),
    lambda torch: torch.arange(1, 10, 3),
    lambda torch: torch.arange(0, 1, 0.1),
    lambda torch: torch.arange(10, 0, -1.5),
    lambda torch: torch.arange(5, dtype=torch.float32),
    lambda torch: torch.arange(0, 5, 0),
    lambda torch: torch.arange(5, 0, 1),
    lambda torch: torch.linspace(0, 1, 5),
    lambda torch: torch.linspace(-3, 3, 7, dtype=torch.float64),
    lambda torch: torch.linspace(0, 10, 4, dtype=torch.int64),
    lambda torch: torch.logspace(0, 2, 3),
    lambda torch: torch.logspace(0, 3, 4, base=2.0),
    lambda torch: torch.eye(3),
    lambda torch: torch.eye(2, 4, dtype=torch.int64),
    lambda torch: torch.zeros(-1),
    lambda torch: torch.zeros(2.5),
    lambda torch: torch.empty(2, 3).shape,
    lambda torch: torch.scalar_tensor(3),
    lambda torch: torch.zeros_like(torch.ones(2, 3, dtype=torch.int32)),
    lambda torch: torch.ones_like(torch.ones(2), dtype=torch.float64),
    lambda torch: torch.full_like(torch.ones(2, dtype=torch.int64), 3.7),
    lambda torch: torch.empty_like(torch.ones(2, 2)).shape,
    lambda torch: torch.ones(2).new_zeros(3),
    lambda torch: torch.ones(2, dtype=torch.int32).new_ones((2, 2)),
    lambda torch: torch.ones(2).new_full((2,), 5),
    lambda torch: torch.ones(2, dtype=torch.float64).new_tensor([1, 2]),
    lambda torch: torch.Tensor([1, 2]),
    lambda torch: torch.Tensor(2, 3).shape,
])
def test_creation(fn):
    check(fn)


def test_from_numpy_and_as_tensor_share_memory():
    for lib in (real, vt):
        a = np.zeros(3, np.float32)
        t = lib.from_numpy(a)
        u = lib.as_tensor(a)
        a[0] = 5
        assert t[0].item() == 5 and u[0].item() == 5
        c = lib.tensor(a)
        a[1] = 6
        assert c[1].item() == 0
    check(lambda torch: torch.from_numpy([1, 2]))


@pytest.mark.parametrize("fn", [
    lambda torch, x: (x.shape, x.size(), x.size(1), x.size(-1), x.dim(), x.ndim, x.numel(), x.nelement(),
                      x.dtype, x.element_size(), x.is_floating_point(), x.is_leaf, x.requires_grad, len(x),
                      x.is_contiguous(), str(x.device), x.device.type, x.is_cuda, x.stride()),
    lambda torch, x: x.size(2),
    lambda torch, x: x.tolist(),
    lambda torch, x: x[0, 0].item(),
    lambda torch, x: (float(x[0, 0]), int(x[0, 1])),
    lambda torch, x: bool(x),
    lambda torch, x: x.item(),
    lambda torch, x: (x.float().dtype, x.double().dtype, x.half().dtype, x.int().dtype, x.long().dtype,
                      x.bool().dtype, x.short().dtype, x.byte().dtype, x.char().dtype, x.bfloat16().dtype),
    lambda torch, x: (x.to(torch.int64), x.to("cpu"), x.to("cpu", torch.float64), x.to(dtype=torch.int8),
                      x.to(torch.ones(1, dtype=torch.float16))),
    lambda torch, x: (x.type(), x.type(torch.int32), x.double().type(), x.type("torch.LongTensor")),
    lambda torch, x: x.type_as(torch.ones(1, dtype=torch.int32)),
    lambda torch, x: (x.clone(), x.detach(), x.contiguous(), x.cpu(), x.numpy()),
    lambda torch, x: torch.is_tensor(x) and not torch.is_tensor(x.numpy()),
    lambda torch, x: (torch.numel(x), torch.is_floating_point(x)),
    lambda torch, x: x.to("cuda"),
    lambda torch, x: torch.zeros(2, device="cuda"),
    lambda torch, x: (torch.device("cpu"), str(torch.device("cuda:1")), torch.device("cpu") == "cpu"),
    lambda torch, x: torch.cuda.is_available(),
    lambda torch, x: list(x)[1],
    lambda torch, x: len(torch.tensor(3.0)),
    lambda torch, x: x.requires_grad_(),
    lambda torch, x: x.long().requires_grad_(),
])
def test_tensor_properties_and_conversions(fn):
    check(fn, arrays((2, 3, 4)))


def test_size_behaves_like_torch_size():
    check(lambda torch: (torch.Size([2, 3]), torch.Size([2, 3]).numel(), torch.Size([2, 3])[1:],
                         torch.Size([2, 3]) + (4,), repr(torch.Size([2, 3])), torch.Size([2, 3]) == (2, 3),
                         torch.ones(2, 3).shape == torch.Size([2, 3])))


# -- autograd API ----------------------------------------------------------------------
def test_backward_accumulates_across_calls():
    def fn(torch, x):
        for _ in range(3):
            (x * x).sum().backward()
        return x.grad
    check(fn, arrays((3, 4)), )
    check(lambda torch, x: _with_grad(x), arrays((3,)))


def _with_grad(x):
    x.requires_grad_()
    (x * 2).sum().backward()
    return x.grad, x.is_leaf, x.grad_fn is None


def test_backward_errors():
    def non_scalar(torch, x):
        x.requires_grad_()
        (x * 2).backward()
    check(non_scalar, arrays((3,)))

    def no_grad(torch, x):
        x.sum().backward()
    check(no_grad, arrays((3,)))

    def twice(torch, x):
        x.requires_grad_()
        y = (x.exp() * x).sum()
        y.backward()
        y.backward()
    check(twice, arrays((3,)))

    def retained(torch, x):
        x.requires_grad_()
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    check(retained, arrays((3,)))

    def int_grad(torch, x):
        return torch.ones(2, dtype=torch.int64).requires_grad_()
    check(int_grad, arrays((3,)))

    def leaf_inplace(torch, x):
        x.requires_grad_()
        x.add_(1)
    check(leaf_inplace, arrays((3,)))


def test_backward_with_gradient_argument_and_inputs():
    def fn(torch, x, w, g):
        x.requires_grad_()
        w.requires_grad_()
        y = x * w
        y.backward(g, inputs=[x])
        return x.grad, w.grad
    check(fn, *arrays((3,), (3,), (3,)))


def test_autograd_grad():
    def fn(torch, x, y):
        x.requires_grad_()
        y.requires_grad_()
        z = (x * x * y).sum()
        gx, gy = torch.autograd.grad(z, (x, y), create_graph=True)
        ggx, = torch.autograd.grad(gx.sum(), x)
        return gx, gy, ggx, gx.requires_grad, x.grad
    check(fn, *arrays((3,), (3,)))

    def unused(torch, x, y):
        x.requires_grad_()
        y.requires_grad_()
        return torch.autograd.grad((x * 2).sum(), [x, y])
    check(unused, *arrays((3,), (3,)))

    def allow_unused(torch, x, y):
        x.requires_grad_()
        y.requires_grad_()
        return torch.autograd.grad((x * 2).sum(), [x, y], allow_unused=True)[1] is None
    check(allow_unused, *arrays((3,), (3,)))

    def materialize(torch, x, y):
        x.requires_grad_()
        y.requires_grad_()
        return torch.autograd.grad((x * 2).sum(), [x, y], materialize_grads=True)
    check(materialize, *arrays((3,), (3,)))

    def not_requiring(torch, x, y):
        x.requires_grad_()
        return torch.autograd.grad((x * 2).sum(), [y])
    check(not_requiring, *arrays((3,), (3,)))


def test_grad_mode_switches():
    def fn(torch, x):
        x.requires_grad_()
        with torch.no_grad():
            a = x * 2
        with torch.enable_grad():
            b = x * 2
        with torch.set_grad_enabled(False):
            c = x * 2
        with torch.inference_mode():
            d = x * 2

        @torch.no_grad()
        def f(v):
            return v * 2

        @torch.no_grad
        def g(v):
            return v * 2
        torch.set_grad_enabled(False)
        e = x * 2
        torch.set_grad_enabled(True)
        return (a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad, f(x).requires_grad,
                g(x).requires_grad, e.requires_grad, torch.is_grad_enabled())
    check(fn, arrays((3,)))


def test_detach_and_hooks():
    def fn(torch, x):
        x.requires_grad_()
        y = x * 3
        y.retain_grad()
        d = y.detach()
        seen = []
        y.register_hook(lambda g: seen.append(g.clone()))
        h = x.register_hook(lambda g: g * 2)
        (y * y).sum().backward()
        h.remove()
        return x.grad, y.grad, seen[0], d.requires_grad, d.is_leaf, y.is_leaf, y.retains_grad
    check(fn, arrays((4,)))


def test_custom_function():
    def fn(torch, x, w):
        class Scale(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, k):
                ctx.save_for_backward(a, b)
                ctx.k = k
                return a * b * k

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g * b * ctx.k, g * a * ctx.k if ctx.needs_input_grad[1] else None, None

        x.requires_grad_()
        y = Scale.apply(x, w, 3.0)
        y.sum().backward()
        return y, x.grad, w.grad, y.requires_grad
    check(fn, *arrays((3,), (3,)))

    def wrong_count(torch, x):
        class Bad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g, g

        x.requires_grad_()
        Bad.apply(x).sum().backward()
    check(wrong_count, arrays((3,)))

    def non_diff(torch, x):
        class Sort(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                idx = torch.argsort(a)
                ctx.mark_non_differentiable(idx)
                return a * 2, idx

            @staticmethod
            def backward(ctx, g, gi):
                return g * 2

        x.requires_grad_()
        y, idx = Sort.apply(x)
        y.sum().backward()
        return x.grad, idx.requires_grad, y.requires_grad
    check(non_diff, arrays((3,)))


def test_inplace_on_saved_tensor_raises_at_backward():
    def fn(torch, x):
        x.requires_grad_()
        a = x * 2
        b = a * a
        a.mul_(3)
        b.sum().backward()
    check(fn, arrays((3,)))

    def fine(torch, x):
        x.requires_grad_()
        a = x * 2
        b = a + 1
        a.add_(1)
        b.sum().backward()
        return x.grad, a
    check(fine, arrays((3,)))

    def inplace_chain(torch, x):
        x.requires_grad_()
        a = x * 2
        a.add_(1)
        a.mul_(x)
        a.sum().backward()
        return x.grad, a
    check(inplace_chain, arrays((3,)))


def test_out_argument_and_autograd():
    check_grad(lambda torch, x: (x * 2).sum(), arrays((3,)))



@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16"])
def test_finfo(name):
    check(lambda torch: (repr(torch.finfo(getattr(torch, name))), torch.finfo(getattr(torch, name)).eps,
                         torch.finfo(getattr(torch, name)).max, torch.finfo(getattr(torch, name)).bits))


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "float32"])
def test_iinfo(name):
    check(lambda torch: (torch.iinfo(getattr(torch, name)).max, torch.iinfo(getattr(torch, name)).min,
                         torch.iinfo(getattr(torch, name)).bits))


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.zero_(),
    lambda torch, x: x.fill_(2.5),
    lambda torch, x: x.long().fill_(2.5),
    lambda torch, x: x.fill_(torch.tensor(3.0)),
    lambda torch, x: x.fill_(torch.ones(2)),
    lambda torch, x: x.copy_(torch.arange(4)),
    lambda torch, x: x.long().copy_(x * 3),
    lambda torch, x: x.copy_(torch.ones(3)),
    lambda torch, x: (x.copy_(torch.ones(3, 4, dtype=torch.float64)), x.dtype),
])
def test_fill_zero_copy(fn):
    check(fn, arrays((3, 4)))


def test_copy_into_a_fresh_tensor_carries_the_gradient():
    def fn(torch, w):
        w.requires_grad_()
        buf = torch.zeros(3)
        buf.copy_(w * 2)
        (buf * buf).sum().backward()
        return w.grad, buf.requires_grad
    check(fn, arrays((3,)))


def test_numpy_scalars_on_the_left_defer_to_the_tensor():
    check(lambda torch, x: (np.float32(2.0) * x, np.float64(1.0) + x), arrays((3,)))


@pytest.mark.parametrize("fn", [
    lambda torch, x: (torch.clone(x), torch.is_complex(x), torch.conj(x), torch.resolve_conj(x), torch.resolve_neg(x),
                      x.conj(), x.is_conj(), x.is_neg()),
    lambda torch, x: torch.is_nonzero(x[:1, :1]),
    lambda torch, x: torch.is_nonzero(x),
    lambda torch, x: torch.is_nonzero(x[:0]),
])
def test_small_type_queries(fn):
    check(fn, arrays((2, 3)))


def test_clone_is_differentiable_and_owns_memory():
    def fn(torch, x):
        x.requires_grad_()
        c = torch.clone(x)
        with torch.no_grad():
            c.add_(1)
        (c * x).sum().backward()
        return c, x.grad
    check(fn, arrays((2, 3)))


@pytest.mark.parametrize("view", [
    lambda x: x, lambda x: x.t(), lambda x: x.permute(2, 0, 1), lambda x: x.transpose(0, 2)[1:],
    lambda x: x[:, ::2], lambda x: x[:, ::2].transpose(0, 1), lambda x: x[1].t(), lambda x: x[:, :1].expand(2, 3, 4),
    lambda x: x[:1].expand(3, 3, 4).transpose(0, 2), lambda x: x.permute(1, 2, 0)[:, 1:, ::2],
    lambda x: x.reshape(2, 1, 3, 4).permute(0, 2, 3, 1), lambda x: x[:, 1, :].unsqueeze(0).transpose(0, 2),
    lambda x: x.diagonal(0, 1, 2), lambda x: x[0, 0, 0],
], ids=range(14))
def test_clone_keeps_torchs_strides(view):
    def fn(torch, x):
        v = view(x)
        copies = (v.clone(), torch.clone(v), v.clone(memory_format=torch.contiguous_format), v.contiguous())
        return [v.stride()] + [(c.stride(), c) for c in copies]

    check(fn, arrays((2, 3, 4)))
    nchw = arrays((2, 3, 4, 5))
    check(lambda torch, x: [(c.stride(), c) for c in (x.clone(memory_format=torch.channels_last),
                                                       x.permute(0, 2, 3, 1).clone(), x[:, :, ::2].clone())], nchw)
    check(lambda torch, x: x.clone(memory_format=torch.channels_last_3d), nchw)  # rank 4: RuntimeError
    check(lambda torch, x: x.clone(memory_format=1), nchw)  # TypeError


def test_writes_through_views_of_a_transposed_clone_under_autograd():
    def fn(torch, x):
        x.requires_grad_()
        c = (x * 2).t().clone()
        strides = c.stride()
        c[1].mul_(3)
        c[:, 0] = 7.0
        (c * torch.arange(1.0, 7.0).reshape(3, 2)).sum().backward()
        return strides, c, x.grad

    check(fn, arrays((2, 3)))


@pytest.mark.parametrize("expr", ["x * 2", "x + y", "x @ y", "x.relu()", "x.sum()", "x.mean()", "x.exp()", "x ** 2",
                                  "x.view(-1)", "x.cumsum(0)", "x.sigmoid()", "x.softmax(0)", "torch.cat([x, y])"])
def test_grad_fn_class_names(expr):
    def fn(torch, x, y):
        x.requires_grad_()
        r = eval(expr, {"torch": torch, "x": x, "y": y})
        return type(r.grad_fn).__name__, r.grad_fn.name()
    check(fn, *arrays((4, 4), (4, 4)))


def test_custom_function_grad_fn_name():
    def fn(torch, x):
        class Twice(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x.requires_grad_()
        return type(Twice.apply(x).grad_fn).__name__
    check(fn, arrays((3,)))


def test_inference_mode_flag():
    def fn(torch, x):
        flags = [torch.is_inference_mode_enabled()]
        with torch.inference_mode():
            flags.append(torch.is_inference_mode_enabled())
            with torch.inference_mode(False):
                flags.append(torch.is_inference_mode_enabled())
        flags.append(torch.is_inference_mode_enabled())
        return flags
    check(fn, arrays((2,)))


def test_unused_input_error_names_the_index():
    for lib in (real, vt):
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="Tensor at index 1 appears to not have been used in the graph"):
            lib.autograd.grad((a * 2).sum(), [a, b])


@pytest.mark.parametrize("fn", [
    lambda torch, x: (torch.FloatTensor([1, 2]), torch.LongTensor([[1, 2]]), torch.DoubleTensor(x),
                      torch.BoolTensor([True, False]), torch.ByteTensor([3]), torch.IntTensor([1]).dtype),
    lambda torch, x: (torch.FloatTensor(2, 3).shape, torch.LongTensor(4).dtype, torch.HalfTensor(2).dtype),
    lambda torch, x: (isinstance(x, torch.FloatTensor), isinstance(x.long(), torch.LongTensor),
                      isinstance(x, torch.LongTensor), isinstance(3, torch.FloatTensor)),
    lambda torch, x: (x.type(torch.LongTensor), x.type(torch.DoubleTensor).dtype),
])
def test_legacy_tensor_types(fn):
    check(fn, arrays((2, 3)))


def test_tensor_constructors_alias_tensor_arguments():
    def fn(torch, x):
        a, b = torch.Tensor(x), torch.FloatTensor(x)
        a[0, 0] = 5
        b[1, 1] = 7
        return x, torch.Tensor(x.double()).dtype
    check(fn, arrays((2, 3)))


def test_settings_constants_and_backends():
    def fn(torch, x):
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True)
        torch.set_float32_matmul_precision("high")
        torch.set_num_threads(1)
        result = (torch.backends.cudnn.deterministic, torch.backends.cudnn.is_available(),
                  torch.backends.mps.is_available(), torch.backends.cuda.is_built(), torch.version.cuda,
                  torch.are_deterministic_algorithms_enabled(), torch.get_float32_matmul_precision(),
                  torch.get_num_threads(), torch.pi, torch.e, torch.inf, torch.newaxis,
                  repr(torch.contiguous_format), repr(torch.channels_last), repr(x.layout), x.layout is torch.strided,
                  x.is_cpu, x.is_inference(), x.is_same_size(x[0]), torch.typename(x), torch.typename(3),
                  str(torch.get_default_device()))
        torch.use_deterministic_algorithms(False)
        torch.set_float32_matmul_precision("highest")
        torch.set_num_threads(2)
        torch.backends.cudnn.deterministic = False
        return result
    check(fn, arrays((2, 3)))


def test_compile_returns_the_model_to_run_eagerly():
    # (real torch.compile is not run here: its first call costs seconds of dynamo start-up)
    def f(t):
        return t * 2
    x = vt.ones(3)
    for compiled in (vt.compile(f), vt.compile(mode="max-autotune")(f)):
        # a wrapper as torch's (so torch.compiler.is_compiling() is True inside), computing f eagerly
        assert compiled is not f and compiled.__wrapped__ is f and compiled.__name__ == "f"
        assert compiled(x).tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("fn", [
    lambda torch, x: (x.clone().resize_(2, 12), x.clone().resize_(3), x.clone().resize_as_(torch.ones(4, 6)).shape),
    lambda torch, x: x.requires_grad_().resize_(3),
    lambda torch, x: (x.sum_to_size(3, 1), x.sum_to_size(1, 3, 4), x.sum_to_size((4,)), x.sum_to_size(2, 3, 4)),
    lambda torch, x: x.sum_to_size(5),
    lambda torch, x: (x.real, x.is_nonzero() if x.numel() == 1 else x[0, 0, :1].is_nonzero()),
    lambda torch, x: x.imag,
    lambda torch, x: (x.unsafe_chunk(2, 1), x.unsafe_split(2), x.unsafe_split_with_sizes([1, 2], 1)),
])
def test_resize_sum_to_size_and_small_methods(fn):
    check(fn, arrays((2, 3, 4)))


def test_sum_to_size_gradient():
    check_grad(lambda torch, x: x.sum_to_size(3, 1) * 2, arrays((2, 3, 4)))


def test_inplace_writes_after_products_that_saved_only_what_they_read():
    def scalar_product(torch, x):  # x[1] * 2 saves nothing of x[1], so writing into x later is fine
        x.requires_grad_()
        a = x.clone()
        a[0] = a[1] * 2
        a[:, 2] += 1
        a.diagonal().mul_(3)
        a.t().contiguous().view(-1).sum().backward()
        return x.grad, a
    check(scalar_product, arrays((3, 3)))

    def tensor_product(torch, x, w):  # here x[1] is saved for w's gradient: torch refuses
        x.requires_grad_()
        w.requires_grad_()
        a = x.clone()
        b = a[1] * w
        a[0] = 1.0
        b.sum().backward()
    check(tensor_product, *arrays((3, 3), (3,)))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2, 3) + lib.ones(4),
    lambda lib: lib.ones(2, 3) * lib.ones(2, 4),
    lambda lib: lib.ones(2, 3, requires_grad=True) - lib.ones(5, 1, 4),
    lambda lib: lib.where(lib.ones(2) > 0, lib.ones(3), lib.ones(2)),
    lambda lib: lib.ones(2, 3) > lib.ones(4),
    lambda lib: lib.ones(2, 2, 3) @ lib.ones(3, 3, 4),
])
def test_broadcast_errors_word_torch_message(fn):
    messages = []
    for lib in (real, vt):
        with pytest.raises(RuntimeError) as info:
            fn(lib)
        messages.append(str(info.value))
    assert messages[1] == messages[0]
