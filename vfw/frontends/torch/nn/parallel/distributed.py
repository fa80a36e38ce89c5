"""``DistributedDataParallel``: every process trains a replica on its own batch; backward averages gradients.

At construction the replicas get rank 0's parameters and buffers (one broadcast per bucket).  Each
``backward()`` that reaches the parameters then averages their ``.grad`` over the processes, in
buckets of ``bucket_cap_mb`` (one MPI all-reduce per bucket), once every gradient is accumulated, so
the optimizer step is the same on every replica: N processes with batch B train like one with batch N*B.

When every process runs on one machine, the gradients are averaged through an MPI shared-memory window instead
(:class:`vfw.core.distributed.SharedAverage`: two passes over them, no all-reduce).  Otherwise a gradient of at
least ``SOLO_BYTES`` is averaged in place in its own memory (a bucket of its own, no copies); smaller ones are
packed into a flat buffer per bucket, divided by the world size as they are packed (so the all-reduce's sum is
the average), and copied back.

Uneven inputs: ``with ddp.join():`` (``torch.distributed.algorithms.Join``) lets a process that ran out of
batches shadow the others' collectives with zero gradients until every process is done.

A DDP model can be deep-copied and pickled (EMA or best-model snapshots): the copy is a working DDP on the default
process group, as in torch; its engine state (buckets, shared-memory window) is rebuilt without collectives, the
window lazily at its first gradient averaging, which every rank reaches together.
"""

import contextlib

import numpy as np

from vfw.core.distributed import SOLO_BYTES, Buckets, SharedAverage, divide_by
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.autograd import _engine
from vfw.frontends.torch.autograd.grad_mode import is_grad_enabled, no_grad
from vfw.frontends.torch.distributed._c10d import resolve_group
from vfw.frontends.torch.distributed.algorithms.join import Join, Joinable, JoinHook
from vfw.frontends.torch.nn.modules.batchnorm import SyncBatchNorm
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["DistributedDataParallel"]

_UNUSED_PARAMETERS = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs participate "
    "in calculating loss. Parameter indices which did not receive grad for rank {rank}: {indices}")

_PENDING = object()  # a copy's SharedAverage before its first gradient averaging creates it


class DistributedDataParallel(Module, Joinable):
    """Data-parallel training of ``module`` over the processes of ``process_group``.

    Parameters
    ----------
    module : Module
        The replica this process trains (``ddp.module``).
    device_ids, output_device : None
        A CPU module takes neither (torch's ValueError otherwise; ``[]`` and ``output_device=0`` pass, as in torch).
    dim : accepted
    broadcast_buffers : bool
        Give every replica rank 0's buffers (running statistics) before a forward that follows one run with grad
        enabled outside ``no_sync`` (and before the first), as torch does.
    process_group : ProcessGroup, optional
        The default group when ``None``.
    bucket_cap_mb : float, optional
        Bucket size for the gradient all-reduce (default 25 MB).
    find_unused_parameters : bool
        Allow parameters that get no gradient in a backward (they count as zero; a parameter unused on
        every rank keeps ``grad=None``). Without it such a parameter raises a RuntimeError.
    gradient_as_bucket_view, static_graph, check_reduction, init_sync, mixed_precision : accepted

    Uneven inputs: train inside ``with ddp.join():`` (see :meth:`join`).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params=False):
        super().__init__()
        Joinable.__init__(self)
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be an nn.Module, got {type(module).__name__}")
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that "
                               "requires a gradient.")
        _check_cpu_devices(device_ids, output_device)
        self.module = module
        self.process_group = resolve_group(process_group, "DistributedDataParallel")
        self.dim = dim
        self.device_ids = device_ids
        self.output_device = output_device
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True  # torch's: whether the next forward broadcasts the buffers
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 2 ** 20)
        engine = self.process_group.engine
        self._trained = [p for p in module.parameters() if p.requires_grad]
        self._build_buckets()
        if init_sync and engine.size > 1:
            states = list(module.parameters()) + list(module.buffers())
            self._broadcast(Buckets([(t.array.shape, t.array.dtype) for t in states]), states)
        if any(isinstance(layer, SyncBatchNorm) for layer in module.modules()):
            # torch refuses them on CPU modules (vfw's only device), after the initial broadcast
            raise ValueError("SyncBatchNorm layers only work with GPU modules")
        self._shared_average = SharedAverage.create(engine, self._specs())  # None: across machines, MPI's all-reduce
        self._reduction_queued = False
        self._comm_hook = None  # (state, hook) from register_comm_hook
        self._divide_by_initial_world_size = True
        self._divisor = None  # under join(divide_by_initial_world_size=False): the processes not joined
        self._register_gradient_hooks()

    def _specs(self):
        return [(p.array.shape, p.array.dtype) for p in self._trained]

    def _build_buckets(self):
        self._gradient_buckets = Buckets(self._specs(), max(self.bucket_bytes_cap, 1), solo_bytes=SOLO_BYTES)
        buffers = list(self.module.buffers())
        self._buffer_buckets = Buckets([(b.array.shape, b.array.dtype) for b in buffers]) if buffers else None

    def _register_gradient_hooks(self):
        for p in self._trained:  # after accumulation, as torch's reducer: torch.autograd.grad() reduces nothing
            if self._on_gradient not in getattr(p, "_post_accumulate_grad_hooks", ()):  # unpickled with it
                p.register_post_accumulate_grad_hook(self._on_gradient)

    def __getstate__(self):
        # The process group, engine buckets, shared-memory window and comm hook stay with this process's original
        # (torch drops its reducer and process group the same way); ``__setstate__`` rebuilds them.
        if self.process_group is not resolve_group(None, "DistributedDataParallel"):
            raise RuntimeError("DDP Pickling/Unpickling are only supported when using DDP with the default process "
                               "group. That is, when you have called init_process_group and have not passed "
                               "process_group argument to DDP constructor")
        state = dict(self.__dict__)
        for name in ("process_group", "_gradient_buckets", "_buffer_buckets", "_shared_average", "_comm_hook",
                     "_reduction_queued", "_join_config"):
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self.process_group = resolve_group(None, "DistributedDataParallel")
        self.__dict__.setdefault("require_forward_param_sync", True)
        self.__dict__.setdefault("require_backward_grad_sync", True)
        self._trained = [p for p in self.module.parameters() if p.requires_grad]
        self._build_buckets()
        # Creating the window is collective: a copy made on one rank only must not wait for the others here.
        self._shared_average = _PENDING
        self._reduction_queued = False
        self._comm_hook = None
        Joinable.__init__(self)
        self.__dict__.setdefault("_divide_by_initial_world_size", True)
        self._divisor = None
        self._register_gradient_hooks()

    def _broadcast(self, buckets, tensors, root=0):
        with no_grad():
            buckets.broadcast(self.process_group.engine, [t.array for t in tensors], root=root)
        for t in tensors:
            _dispatch.bump_version(t)

    def will_sync_module_buffers(self):
        """Whether the next forward gives every replica the authoritative rank's buffers."""
        return bool(self.require_forward_param_sync and self.broadcast_buffers and self._buffer_buckets is not None)

    def _sync_buffers(self, root):
        if self.process_group.size() > 1:
            with no_grad():  # torch keeps the buffers' version counters: a pending backward may still use them
                self._buffer_buckets.broadcast(self.process_group.engine, [b.array for b in self.module.buffers()],
                                               root=root)

    def forward(self, *inputs, **kwargs):
        joining = self._join_config.enable
        work = Join.notify_join_context(self)
        if work is not None:  # the processes not joined: the divisor of this iteration's gradients, if asked
            self._divisor = None if self._divide_by_initial_world_size else int(work.result()[0].item())
        if self.will_sync_module_buffers():
            # under join, rank 0 may have joined with stale buffers: the highest rank still training gives them
            self._sync_buffers(self._find_common_rank(self.process_group.rank(), True) if joining else 0)
        if joining:
            self._check_global_requires_backward_grad_sync(is_joined_rank=False)
        output = self.module(*inputs, **kwargs)
        # As torch: the next forward broadcasts the buffers only after one that prepared a synchronized backward.
        self.require_forward_param_sync = is_grad_enabled() and self.require_backward_grad_sync
        return output

    # -- uneven inputs (torch.distributed.algorithms.join) ------------------------------------------------------
    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        """A :class:`~torch.distributed.algorithms.Join` context for training on uneven inputs.

        A process that runs out of batches leaves the ``with`` body and shadows the others' collectives until
        every process is done; its gradients count as zeros.  At the end every replica gets the parameters and
        buffers of a process that joined last.

        Parameters
        ----------
        divide_by_initial_world_size : bool
            Average the gradients over the initial world size (default, as torch) or over the processes still
            training at that iteration.
        enable : bool
            ``False``: the context does nothing.
        throw_on_early_termination : bool
            Raise a RuntimeError on every process as soon as one runs out of inputs.
        """
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        """The :class:`JoinHook` shadowing this DDP's forward and backward collectives on a joined process."""
        return _DDPJoinHook(self, kwargs.get("divide_by_initial_world_size", True))

    @property
    def join_device(self):
        from vfw.frontends.torch._device import device

        return device("cpu")  # the device of every vfw module

    @property
    def join_process_group(self):
        return self.process_group

    def _all_reduce_flag(self, value, dtype, op="sum"):
        flag = np.array([value], dtype)
        self.process_group.engine.all_reduce(flag, op, out=flag)
        return flag[0].item()

    def _find_common_rank(self, rank, rank_cond):
        """The highest rank among the processes where ``rank_cond`` holds (every process calls it)."""
        chosen = self._all_reduce_flag(rank if rank_cond else -1, np.int64, "max")
        if chosen == -1:
            raise ValueError("BUG! Expected rank_cond to be true for at least one process. This indicates a bug in "
                             "PyTorch, please report an issue.")
        return int(chosen)

    def _check_global_requires_backward_grad_sync(self, is_joined_rank):
        """Whether the processes still training will average gradients this iteration (a joined one asks)."""
        wants = not is_joined_rank and self.require_backward_grad_sync
        return self._all_reduce_flag(float(wants), np.float32) != 0

    def _sync_final_model(self, is_last_joiner):
        root = self._find_common_rank(self.process_group.rank(), is_last_joiner)
        states = list(self.module.parameters()) + list(self.module.buffers())
        self._broadcast(Buckets([(t.array.shape, t.array.dtype) for t in states]), states, root=root)

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, backward accumulates local gradients only; the first backward after it averages them all."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def register_comm_hook(self, state, hook):
        """Reduce each gradient bucket with ``hook(state, bucket)`` instead of averaging it.

        ``bucket`` is a :class:`torch.distributed.GradBucket` holding this process's gradients (flat, not yet
        reduced); the hook returns a ``torch.futures.Future`` whose tensor becomes the bucket's gradients (e.g.
        ``torch.distributed.algorithms.ddp_comm_hooks.default_hooks.allreduce_hook`` with ``state`` a process
        group or ``None``). Only one hook may be registered.
        """
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        if getattr(hook, "__qualname__", None) == "bf16_compress_hook":  # torch allows it on CUDA/XPU devices only
            raise TypeError("BF16 all reduce communication hook required CUDA 11+ and NCCL 2.10+ or XPU and XCCL")
        self._comm_hook = (state, hook)

    def _on_gradient(self, param):
        # A parameter's gradient arrived: average them all once this backward has accumulated every one.
        if self.require_backward_grad_sync and not self._reduction_queued:
            self._reduction_queued = True
            _engine.queue_callback(self._average_gradients)

    def _average_gradients(self, joined=False):
        """Average the gradients over the processes.  ``joined``: shadow the averaging of the processes still
        training with zero gradients, leaving this process's own untouched (a joined process's hook)."""
        self._reduction_queued = False
        engine = self.process_group.engine
        if joined:
            grads = [np.zeros(p.array.shape, p.array.dtype) for p in self._trained]
        else:
            grads = [None if p.grad is None else p.grad.array for p in self._trained]
        used = np.array([g is not None and not joined for g in grads], np.uint8)
        divisor = self._divisor or engine.size
        if self.find_unused_parameters:
            engine.all_reduce(used, "max", out=used)
        elif not used.all() and not joined:
            raise RuntimeError(_UNUSED_PARAMETERS.format(rank=engine.rank, indices=np.flatnonzero(used == 0).tolist()))
        if self._comm_hook is not None:
            from vfw.frontends.torch.distributed._grad_bucket import reduce_with_hook

            reduce_with_hook(self._comm_hook[1], self._comm_hook[0], self._gradient_buckets, self._trained, grads,
                             used, write=not joined)
            return
        if self._shared_average is _PENDING:
            self._shared_average = SharedAverage.create(engine, self._specs())
        if self._shared_average is not None:
            averages = self._shared_average.average(grads, divisor)
            for p, grad, average, is_used in zip(self._trained, grads, averages, used):
                if joined:
                    continue
                if grad is not None:
                    _dispatch.bump_version(p.grad)
                elif is_used:
                    p.grad = _dispatch.wrap(average)
            return
        for bucket in self._gradient_buckets.buckets:
            if len(bucket.indices) == 1:
                self._average_in_place(engine, bucket.indices[0], grads[bucket.indices[0]], used, divisor, joined)
            else:
                self._average_bucket(engine, bucket, grads, used, divisor, joined)

    def _average_in_place(self, engine, i, grad, used, divisor, joined):
        """Average a bucket of one gradient in its own memory (no packing; see ``SOLO_BYTES``).

        A gradient array set as ``.grad`` of two parameters is averaged twice, which leaves the average (it
        is the same on every rank after the first time).
        """
        p = self._trained[i]
        if grad is None:
            if not used[i]:
                return  # unused on every rank: keeps grad None
            grad = np.zeros(p.array.shape, p.array.dtype)
            p.grad = _dispatch.wrap(grad)
        else:
            divide_by(grad, divisor, out=grad)
        engine.all_reduce(grad, "sum", out=grad)
        if not joined:
            _dispatch.bump_version(p.grad)

    def _average_bucket(self, engine, bucket, grads, used, divisor, joined):
        """Average one bucket's gradients: packed into the bucket's flat buffer (each divided by the world size on
        the way in, so the all-reduce's sum is the average), reduced in place, copied back."""
        flat = bucket.buffer
        members = list(zip(bucket.indices, bucket.offsets, bucket.offsets[1:]))
        views = [flat[start:stop].reshape(self._trained[i].array.shape) for i, start, stop in members]
        for (i, _, _), view in zip(members, views):
            if grads[i] is None:
                view[...] = 0
            else:
                divide_by(grads[i], divisor, out=view)
        engine.all_reduce(flat, "sum", out=flat)
        if joined:
            return
        for (i, _, _), view in zip(members, views):
            p, grad = self._trained[i], grads[i]
            if grad is not None:
                np.copyto(grad, view)
                _dispatch.bump_version(p.grad)
            elif used[i]:
                p.grad = _dispatch.wrap(view.copy())


def _check_cpu_devices(device_ids, output_device):
    """torch's ValueError: on a CPU module (every vfw module), ``device_ids`` and ``output_device`` must be unset."""
    if device_ids or output_device:  # (torch's truth test: output_device=0 passes)
        raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                         "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                         f"{device_ids}, output_device {output_device}, and module parameters {{device(type='cpu')}}.")


class _DDPJoinHook(JoinHook):
    """What a joined process runs for DDP: each iteration the others train, it meets their buffer broadcast,
    their question whether this iteration averages gradients, and then that averaging with zero gradients; at
    the end every replica gets the parameters and buffers of a process that joined last."""

    def __init__(self, ddp, divide_by_initial_world_size):
        if not isinstance(divide_by_initial_world_size, bool):
            raise AssertionError("divide_by_initial_world_size must be a bool")
        self.ddp = ddp
        ddp._divide_by_initial_world_size = divide_by_initial_world_size

    def main_hook(self):
        ddp = self.ddp
        if ddp.will_sync_module_buffers():
            ddp._sync_buffers(ddp._find_common_rank(ddp.process_group.rank(), False))
        should_sync = ddp._check_global_requires_backward_grad_sync(is_joined_rank=True)
        ddp.require_forward_param_sync = should_sync
        if should_sync:
            ddp._average_gradients(joined=True)

    def post_hook(self, is_last_joiner):
        self.ddp._sync_final_model(is_last_joiner)
