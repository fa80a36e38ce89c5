"""The "Serialization semantics" note: saving tensors that share storage preserves the sharing (a view and its
base come back as views of one storage), saving a small view saves its whole storage (clone first to save only
the view), weights_only loading, a module's state_dict with buffers (persistent and not) saved and loaded into a
fresh module, and map_location."""

import io

import torch
from torch import nn


class BufferNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 2)
        self.bn = nn.BatchNorm1d(2)
        self.register_buffer("steps", torch.tensor(0))
        self.register_buffer("cache", torch.zeros(2), persistent=False)

    def forward(self, x):
        self.steps += 1
        return self.bn(self.linear(x))


def round_trip(obj, **kwargs):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer, **kwargs), buffer.getbuffer().nbytes


def main():
    out = []
    numbers = torch.arange(1, 10)
    evens = numbers[1::2]
    loaded, _ = round_trip([numbers, evens])
    loaded_numbers, loaded_evens = loaded
    loaded_evens *= 2
    out.append(repr(loaded_numbers))
    out += [repr(loaded_evens.stride()), loaded_evens.storage_offset(), repr(loaded_evens.is_contiguous())]
    out.append(loaded_numbers.untyped_storage().data_ptr() == loaded_evens.untyped_storage().data_ptr())

    large = torch.arange(1, 1000)
    small = large[0:5]
    _, whole_size = round_trip(small)
    _, clone_size = round_trip(small.clone())
    out += [whole_size > 7000, clone_size < 2000, repr(round_trip(small)[0].untyped_storage().size())]
    out.append(repr(round_trip(small.clone())[0].untyped_storage().size()))

    torch.manual_seed(2)
    net = BufferNet()
    net.train()
    for _ in range(3):
        net(torch.randn(8, 3))
    state = net.state_dict()
    out.append(repr(list(state.keys())))
    restored_state, _ = round_trip(state, weights_only=True)
    fresh = BufferNet()
    result = fresh.load_state_dict(restored_state)
    out += [repr(result), fresh.steps.item(), repr(fresh.bn.running_mean), fresh.bn.num_batches_tracked.item()]
    out.append(all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), fresh.state_dict().values())))
    out.append(repr(type(restored_state).__name__))
    mapped, _ = round_trip({"w": net.linear.weight.detach(), "step": 3}, map_location="cpu")
    out += [repr(sorted(mapped)), repr(mapped["w"].device), mapped["step"]]
    mapped, _ = round_trip({"w": torch.ones(2)}, map_location=torch.device("cpu"))
    out.append(repr(mapped["w"]))
    mapped, _ = round_trip({"w": torch.ones(2)}, map_location=lambda storage, loc: storage)
    out.append(repr(mapped["w"]))
    param, _ = round_trip(nn.Parameter(torch.ones(2)))
    out += [repr(type(param).__name__), param.requires_grad]
    mixed, _ = round_trip({"t": torch.tensor([1.5], dtype=torch.float64), "n": [1, 2.5, "s", None, (True,)]})
    out += [repr(mixed["n"]), repr(mixed["t"])]
    strict_error = fresh.load_state_dict({"linear.weight": torch.zeros(2, 3)}, strict=False)
    out.append(repr(strict_error))
    try:
        fresh.load_state_dict({"linear.weight": torch.zeros(3, 3)}, strict=False)
    except RuntimeError as err:
        out.append(str(err))
    return out
