"""Transfer learning the way fine-tuning tutorials do it: a "pretrained" backbone (LSTM with proj_size, two layers,
a non-persistent buffer) saved with torch.save into an io.BytesIO, restored into a model with a new head through
load_state_dict(strict=False) (missing/unexpected keys reported), the backbone frozen with requires_grad_(False),
then gradually unfrozen with optimizer.add_param_group; per-group options (AdamW amsgrad, weight_decay 0 for biases
and norms), MultiStepLR, clip_grad_value_, parameters_to_vector/vector_to_parameters and custom init
(orthogonal_, kaiming_uniform_ with mode='fan_out')."""

import io

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parameters_to_vector, vector_to_parameters


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(12, 6)
        self.lstm = nn.LSTM(6, 8, num_layers=2, proj_size=4, batch_first=True)
        self.norm = nn.LayerNorm(4)
        self.register_buffer("scale", torch.tensor(0.5), persistent=False)
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))

    def forward(self, ids):
        out, (h, c) = self.lstm(self.embed(ids))
        return self.norm(out[:, -1]) * self.scale + h[-1], c


class Pretrain(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.lm_head = nn.Linear(4, 12)

    def forward(self, ids):
        return self.lm_head(self.backbone(ids)[0])


class Finetune(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.heads = nn.ModuleDict({"cls": nn.Linear(4, 3), "aux": nn.Linear(4, 1)})
        nn.init.orthogonal_(self.heads["cls"].weight, gain=0.8)
        nn.init.kaiming_uniform_(self.heads["aux"].weight, a=0.1, mode="fan_out", nonlinearity="leaky_relu")

    def forward(self, ids):
        h, c = self.backbone(ids)
        return self.heads["cls"](h), self.heads["aux"](h).squeeze(-1), c


def groups(module, lr):
    decay = [p for n, p in module.named_parameters() if p.requires_grad and p.ndim > 1]
    no_decay = [p for n, p in module.named_parameters() if p.requires_grad and p.ndim <= 1]
    return [{"params": decay, "lr": lr, "weight_decay": 0.05}, {"params": no_decay, "lr": lr, "weight_decay": 0.0}]


def main():
    torch.manual_seed(0)
    ids = torch.randint(0, 12, (10, 5))
    nxt = (ids[:, -1] + 1) % 12
    pre = Pretrain()
    opt = torch.optim.Adam(pre.parameters(), lr=0.02)
    out = []
    for _ in range(4):
        loss = F.cross_entropy(pre(ids), nxt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        pre.backbone.steps += 1
        out.append(loss.item())
    buffer = io.BytesIO()
    torch.save(pre.state_dict(), buffer)
    out += [str(sorted(pre.state_dict().keys())), buffer.tell() > 0]

    model = Finetune()
    buffer.seek(0)
    state = torch.load(buffer, map_location="cpu", weights_only=True)
    result = model.load_state_dict(state, strict=False)
    out += [str(sorted(result.missing_keys)), str(sorted(result.unexpected_keys)), int(model.backbone.steps),
            str(tuple(state["backbone.lstm.weight_hh_l1"].shape))]
    model.backbone.requires_grad_(False)
    opt = torch.optim.AdamW(groups(model.heads, 0.03), amsgrad=True, betas=(0.9, 0.99))
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
    label = ids[:, 0] % 3
    target = ids.float().mean(1) / 12
    for step in range(6):
        if step == 3:
            model.backbone.lstm.requires_grad_(True)
            opt.add_param_group({"params": list(model.backbone.lstm.parameters()), "lr": 0.005})
        logits, aux, c = model(ids)
        loss = F.cross_entropy(logits, label) + F.mse_loss(aux, target)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)
        opt.step()
        sched.step()
        out += [loss.item(), str([g["lr"] for g in opt.param_groups]), str(tuple(c.shape))]
    out += [model.backbone.embed.weight.grad is None, model.backbone.lstm.weight_ih_l0.grad.abs().max().item()]
    vec = parameters_to_vector(model.heads.parameters())
    vector_to_parameters(vec * 0.5, model.heads.parameters())
    out += [vec.numel(), vec.norm().item(), model(ids)[0][0].tolist()[0], len(opt.state_dict()["state"])]
    return out
