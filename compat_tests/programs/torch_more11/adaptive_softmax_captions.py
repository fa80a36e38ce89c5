"""An image-captioning style decoder, as in fairseq / PyTorch word-language-model examples: 2x2 patches cut with
Tensor.unfold give memory tokens, nn.TransformerDecoder (batch_first, norm_first) attends to them under
nn.Transformer.generate_square_subsequent_mask and a tgt_key_padding_mask, and the vocabulary is scored by
nn.AdaptiveLogSoftmaxWithLoss (cutoffs, div_value) whose .log_prob and .predict give perplexity and greedy tokens;
token log-probabilities are picked with torch.take_along_dim, weights tied with F.embedding, trained with Adagrad."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, PAD, BOS = 40, 0, 1


class Captioner(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, d), nn.CELU(0.5), nn.Linear(d, d))
        self.embed_weight = nn.Parameter(torch.randn(VOCAB, d) * 0.1)
        self.pos = nn.Parameter(torch.zeros(1, 8, d))
        layer = nn.TransformerDecoderLayer(d, 2, dim_feedforward=32, dropout=0.1, batch_first=True, norm_first=True)
        self.decoder = nn.TransformerDecoder(layer, num_layers=2, norm=nn.LayerNorm(d))
        self.head = nn.AdaptiveLogSoftmaxWithLoss(d, VOCAB, cutoffs=[8, 20], div_value=2.0)

    def features(self, images, tokens):
        # (n, 16 patches, 4 pixels)
        patches = images.squeeze(1).unfold(1, 2, 2).unfold(2, 2, 2).flatten(-2).flatten(1, 2)
        memory = self.encoder(patches)
        emb = F.embedding(tokens, self.embed_weight, padding_idx=PAD) * math.sqrt(self.embed_weight.shape[1])
        length = tokens.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(length)
        return self.decoder(emb + self.pos[:, :length], memory, tgt_mask=mask, tgt_is_causal=True,
                            tgt_key_padding_mask=tokens == PAD)


def make_batch(g, n=6):
    images = torch.randn(n, 1, 8, 8, generator=g)
    lengths = torch.randint(3, 7, (n,), generator=g)
    words = torch.randint(2, VOCAB, (n, 7), generator=g)
    keep = torch.arange(7).unsqueeze(0) < lengths.unsqueeze(1)
    captions = torch.where(keep, words, torch.full_like(words, PAD))
    inputs = torch.cat([torch.full((n, 1), BOS), captions[:, :-1]], dim=1)
    return images, inputs, captions


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(11)
    model = Captioner()
    opt = torch.optim.Adagrad(model.parameters(), lr=0.05, lr_decay=1e-3, initial_accumulator_value=0.1)
    images, inputs, captions = make_batch(g)
    out = []
    for _step in range(4):
        model.train()
        hidden = model.features(images, inputs)
        valid = captions != PAD
        result = model.head(hidden[valid], captions[valid])
        opt.zero_grad()
        result.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type=2.0)
        opt.step()
        out += [result.loss.item(), result.output.sum().item()]
    model.eval()
    with torch.no_grad():
        hidden = model.features(images, inputs)
        log_probs = model.head.log_prob(hidden.reshape(-1, hidden.shape[-1])).reshape(6, 7, VOCAB)
        token_lp = torch.take_along_dim(log_probs, captions.unsqueeze(-1), dim=-1).squeeze(-1)
        valid = captions != PAD
        ppl = torch.exp(-(token_lp * valid).sum() / valid.sum())
        predicted = model.head.predict(hidden[:, 0])
    out += [ppl.item(), log_probs.logsumexp(-1).mean().item(), *predicted.tolist(),
            str(nn.Transformer.generate_square_subsequent_mask(3).tolist())]  # -inf entries: compared as text
    return out
