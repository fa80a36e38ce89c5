"""A small U-Net-style segmenter (strided convs, ConvTranspose2d, nn.Upsample, skip connections by torch.cat, a
GroupNorm, a global head using x.view(x.size(0), -1)) trained a few steps and exported with dynamic batch, height
and width at opsets 11 and 17; onnxruntime runs images of other sizes than the example's."""

import io

import numpy as np
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())
        self.bottom = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(16, 16, 3, padding=1), nn.LeakyReLU(0.1))
        self.up1 = nn.Upsample(scale_factor=2, mode="nearest")
        self.dec2 = nn.Conv2d(32, 8, 3, padding=1)
        self.up2 = nn.ConvTranspose2d(8, 8, 2, stride=2)
        self.dec1 = nn.Conv2d(16, 2, 1)
        self.presence = nn.Linear(16, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        b = self.bottom(e2)
        d2 = F.relu(self.dec2(torch.cat([self.up1(b), e2], dim=1)))
        logits = self.dec1(torch.cat([self.up2(d2), e1], dim=1))
        pooled = F.adaptive_max_pool2d(b, 1).view(b.size(0), -1)
        return logits, torch.sigmoid(self.presence(pooled)).squeeze(1)


def main():
    torch.manual_seed(8)
    model = UNet()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    images = torch.randn(4, 3, 16, 16)
    masks = (images[:, 0] > 0).long()
    out = []
    for _ in range(3):
        logits, presence = model(images)
        loss = F.cross_entropy(logits, masks) + F.binary_cross_entropy(presence, torch.ones(4))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    for opset in (11, 17):
        buffer = io.BytesIO()
        torch.onnx.export(model, images[:1], buffer, input_names=["image"], output_names=["logits", "presence"],
                          opset_version=opset, dynamo=False,
                          dynamic_axes={"image": {0: "n", 2: "h", 3: "w"}, "logits": {0: "n", 2: "h", 3: "w"},
                                        "presence": {0: "n"}})
        session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        out.append(repr([(v.name, v.shape) for v in session.get_inputs() + session.get_outputs()]))
        for shape in ((2, 3, 8, 12), (1, 3, 24, 20)):
            image = torch.randn(shape)
            logits, presence = session.run(None, {"image": image.numpy()})
            with torch.no_grad():
                want_logits, want_presence = model(image)
            out += [repr(logits.shape), round(float(np.abs(logits - want_logits.numpy()).max()), 4),
                    round(float(np.abs(presence - want_presence.numpy()).max()), 4)]
            out += logits[0, :, 0, :3].ravel().tolist() + presence.tolist()
    return out
