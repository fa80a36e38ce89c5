"""A CLIP-style contrastive image-text model on synthetic pairs: a small conv image encoder with adaptive
pooling and a text encoder (embedding, masked mean over tokens, projection), L2-normalised embeddings, a learnable
logit_scale nn.Parameter initialised to log(1/0.07) used through exp() and clamped in place under no_grad, the
symmetric cross-entropy over the similarity matrix with label smoothing, top-1 retrieval accuracy both ways,
Adam with a cosine schedule and zero-shot classification by text prompts."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ImageEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.proj = nn.Linear(16, dim, bias=False)

    def forward(self, x):
        return self.proj(self.conv(x).flatten(1))


class TextEncoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, 24, padding_idx=0)
        self.mix = nn.Sequential(nn.Linear(24, 24), nn.GELU())
        self.proj = nn.Linear(24, dim, bias=False)

    def forward(self, tokens):
        mask = (tokens != 0).unsqueeze(-1).float()
        h = self.mix(self.embed(tokens)) * mask
        return self.proj(h.sum(1) / mask.sum(1).clamp_min(1.0))


class CLIP(nn.Module):
    def __init__(self, vocab, dim=16):
        super().__init__()
        self.image = ImageEncoder(dim)
        self.text = TextEncoder(vocab, dim)
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))

    def forward(self, images, tokens):
        img = F.normalize(self.image(images), dim=-1)
        txt = F.normalize(self.text(tokens), dim=-1)
        logits = self.logit_scale.exp() * img @ txt.t()
        return logits, logits.t()


def main():
    torch.manual_seed(31)
    n_classes, vocab = 4, 12
    prototypes = torch.randn(n_classes, 3, 8, 8)
    labels = torch.arange(16) % n_classes
    images = prototypes[labels] + 0.3 * torch.randn(16, 3, 8, 8)
    tokens = torch.stack([torch.tensor([1 + c, 5 + c, 9 + (c % 3), 0, 0][: 3 + (c % 2)] + [0] * (2 - c % 2))
                          for c in labels.tolist()])
    model = CLIP(vocab)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, betas=(0.9, 0.98), eps=1e-6)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=1e-4)
    targets = torch.arange(16)
    out = []
    for _ in range(10):
        logits_img, logits_txt = model(images, tokens)
        loss = (F.cross_entropy(logits_img, targets, label_smoothing=0.1)
                + F.cross_entropy(logits_txt, targets, label_smoothing=0.1)) / 2
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        with torch.no_grad():
            model.logit_scale.clamp_(0, math.log(100))
        acc_i = (logits_img.argmax(1) == targets).float().mean()
        acc_t = (logits_txt.argmax(1) == targets).float().mean()
        out += [loss.item(), acc_i.item(), acc_t.item(), model.logit_scale.item()]
    model.eval()
    with torch.no_grad():
        prompts = torch.tensor([[1 + c, 5 + c, 9 + (c % 3)] for c in range(n_classes)])
        txt = F.normalize(model.text(prompts), dim=-1)
        img = F.normalize(model.image(images), dim=-1)
        probs = (100.0 * img @ txt.T).softmax(dim=-1)
        top_p, top_c = probs.topk(2, dim=-1)
        out += top_p.flatten().tolist() + top_c.flatten().tolist()
        out.append(F.cosine_similarity(img[:8], img[8:]).mean().item())
    return out
