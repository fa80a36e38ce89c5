"""Realistic models exported by torch.onnx.export with dynamic axes, run in onnxruntime at the example sizes and at
others, against real torch 2.13's eager outputs with the same weights: a GPT-style decoder (causal mask and
positions built from the sequence length), an encoder layer with ``generate_square_subsequent_mask``, a ViT-style
patch embedding (cls token, bicubic interpolation of the position embedding to the patch grid), strided CNNs whose
output sizes are read in Python under dynamic image axes.  Where vfw cannot generalize a model it refuses it,
naming why: a ViT with a cls token whose image size is dynamic."""

import math

import numpy as np
import pytest

from compat_tests.torch.onnx_harness import F, I, check_module, compare, export_model, real, run_ort, same_weights, vt


def _gpt(t):
    nn = t.nn

    class Block(nn.Module):
        def __init__(self, width, heads):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))
            self.heads = heads

        def forward(self, x):
            batch, length, width = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(width, dim=2)
            q, k, v = (z.view(batch, length, self.heads, width // self.heads).transpose(1, 2) for z in (q, k, v))
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            causal = t.tril(t.ones(length, length)).view(1, 1, length, length)
            weights = scores.masked_fill(causal == 0, float("-inf")).softmax(-1)
            y = (weights @ v).transpose(1, 2).contiguous().view(batch, length, width)
            x = x + self.proj(y)
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens, self.positions = nn.Embedding(20, 16), nn.Embedding(32, 16)
            self.blocks = nn.Sequential(Block(16, 4), Block(16, 4))
            self.ln, self.head = nn.LayerNorm(16), nn.Linear(16, 20, bias=False)

        def forward(self, idx):
            length = idx.size(1)
            x = self.tokens(idx) + self.positions(t.arange(0, length, dtype=t.long))
            return self.head(self.ln(self.blocks(x)))

    return GPT()


def _causal_encoder(t):
    nn = t.nn

    class CausalEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(20, 16)
            self.layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
            self.head = nn.Linear(16, 20)

        def forward(self, idx):
            mask = nn.Transformer.generate_square_subsequent_mask(idx.shape[1])
            return self.head(self.layer(self.embed(idx), src_mask=mask, is_causal=True))

    return CausalEncoder()


def _vit(t):
    nn, functional = t.nn, t.nn.functional

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.patch = nn.Conv2d(3, 16, 4, 4)
            self.cls = nn.Parameter(t.randn(1, 1, 16))
            self.pos = nn.Parameter(t.randn(1, 1 + 4 * 4, 16))
            self.encoder = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
            self.head = nn.Linear(16, 5)

        def interpolated_positions(self, h, w):
            cls_pos, grid = self.pos[:, :1], self.pos[:, 1:]
            grid = grid.reshape(1, 4, 4, 16).permute(0, 3, 1, 2)
            grid = functional.interpolate(grid, size=(h, w), mode="bicubic", align_corners=False)
            return t.cat([cls_pos, grid.permute(0, 2, 3, 1).reshape(1, h * w, 16)], dim=1)

        def forward(self, x):
            patches = self.patch(x)
            h, w = patches.shape[-2:]
            tokens = patches.flatten(2).transpose(1, 2)
            tokens = t.cat([self.cls.expand(x.shape[0], -1, -1), tokens], dim=1) + self.interpolated_positions(h, w)
            return self.head(self.encoder(tokens)[:, 0])

    return ViT()


def _strided_cnn(t):
    nn = t.nn

    class StridedCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 4, 3, stride=2, padding=1)
            self.conv2 = nn.Conv2d(4, 4, 3, stride=2, padding=1)

        def forward(self, x):
            y = self.conv2(t.relu(self.conv1(x)))
            # sizes read in Python: (H + 3) // 4 rows and (W + 3) // 4 columns
            return y.view(y.size(0), -1).sum(1, keepdim=True) / y.shape[-1]

    return StridedCNN()


def _patch_mean(t):
    nn, functional = t.nn, t.nn.functional

    class PatchMean(nn.Module):
        def __init__(self):
            super().__init__()
            self.patch = nn.Conv2d(3, 8, 4, 4)
            self.pos = nn.Parameter(t.randn(1, 4 * 4, 8))
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            patches = self.patch(x)
            h, w = patches.shape[-2:]
            grid = functional.interpolate(self.pos.reshape(1, 4, 4, 8).permute(0, 3, 1, 2), size=(h, w),
                                          mode="bilinear", align_corners=False)
            tokens = patches.flatten(2).transpose(1, 2) + grid.permute(0, 2, 3, 1).reshape(1, h * w, 8)
            return self.head(tokens.mean(1))

    return PatchMean()


def _lstm_tagger(t):
    nn, rnn = t.nn, t.nn.utils.rnn

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(30, 8)
            self.lstm = nn.LSTM(8, 12, batch_first=True, bidirectional=True)
            self.out = nn.Linear(24, 5)

        def forward(self, tokens, lengths):
            packed = rnn.pack_padded_sequence(self.embed(tokens), lengths, batch_first=True, enforce_sorted=False)
            out, _ = self.lstm(packed)
            out, _ = rnn.pad_packed_sequence(out, batch_first=True, total_length=tokens.shape[1])
            return self.out(out).log_softmax(-1)

    return Tagger()


def test_gpt_decoder_with_dynamic_batch_and_sequence():
    check_module(_gpt, [I("B", "L", high=20)], rtol=1e-4, atol=1e-5)


def test_causal_encoder_layer_with_dynamic_batch_and_sequence():
    check_module(_causal_encoder, [I("B", "L", high=20)], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("image", [(16, 16), (20, 12)])
def test_vit_with_interpolated_positions_and_dynamic_batch(image):
    check_module(_vit, [F("B", 3, *image)], rtol=1e-4, atol=1e-5)


def test_sizes_of_strided_convolutions_read_in_python_follow_dynamic_image_axes():
    # (H + 3) // 4: the sizes one and two apart do not show it; the exporter traces again and fits floor divisions
    check_module(_strided_cnn, [F("B", 3, "H", "W")], sizes={"H": 16, "W": 12}, rtol=1e-4, atol=1e-5)


def test_patch_grid_with_interpolated_positions_follows_dynamic_image_axes():
    check_module(_patch_mean, [F("B", 3, "H", "W")], sizes={"H": 16, "W": 16}, rtol=1e-4, atol=1e-5)


def test_vit_with_a_dynamic_image_size_is_refused_naming_the_strided_size():
    # the patch grid (h, w) is read in Python from a stride-4 convolution's output, and the cls token makes the
    # sequence 1 + h * w long: batch * (1 + h * w) is no formula of floor divisions the exporter fits, and its own
    # check at other sizes catches that
    with pytest.raises(vt.onnx.OnnxExporterError, match="strided convolution"):
        check_module(_vit, [F("B", 3, "H", "W")], sizes={"H": 16, "W": 16})


def test_lstm_tagger_packing_by_the_lengths_values_runs_at_other_lengths():
    # the lengths stay values of the graph (the LSTM's sequence_lens), so other lengths give torch's results
    theirs, ours = same_weights(_lstm_tagger)
    rng = np.random.default_rng(0)
    tokens, lengths = rng.integers(0, 30, (3, 6)), np.array([6, 2, 4])
    proto = export_model(ours, [tokens, lengths])
    for other in (lengths, np.array([3, 6, 1]), np.array([2, 2, 5])):
        with real.no_grad():
            want = theirs(real.from_numpy(tokens), real.from_numpy(other)).numpy()
        compare(run_ort(proto, [tokens, other]), [want], 1e-5, 1e-5, f"lengths {other.tolist()}")
