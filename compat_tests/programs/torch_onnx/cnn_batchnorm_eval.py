"""An image classifier with BatchNorm and Dropout, trained a few steps (running statistics move), then exported in
eval mode the way deployment scripts do it (opset 13, export_params=True, do_constant_folding=True, a dynamic
batch): batch norm must export with its running statistics and dropout as the identity, so that onnxruntime
reproduces model.eval() on fresh images."""

import io

import numpy as np
import onnx
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 12, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(12)
        self.drop = nn.Dropout(0.3)
        self.head = nn.Linear(12 * 4 * 4, 5)

    def forward(self, images):
        h = F.max_pool2d(F.relu(self.bn1(self.conv1(images))), 2)
        h = F.relu(self.bn2(self.conv2(h)))
        h = F.adaptive_avg_pool2d(h, 4)
        return self.head(self.drop(torch.flatten(h, 1)))


def main():
    torch.manual_seed(1)
    model = SmallCNN()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    images, labels = torch.randn(16, 3, 16, 16), torch.randint(0, 5, (16,))
    out = []
    for _ in range(4):
        loss = F.cross_entropy(model(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += model.bn2.running_mean[:3].tolist() + [int(model.bn1.num_batches_tracked)]
    model.eval()
    buffer = io.BytesIO()
    torch.onnx.export(model, torch.randn(2, 3, 16, 16), buffer, export_params=True, do_constant_folding=True,
                      opset_version=13, input_names=["images"], output_names=["scores"],
                      dynamic_axes={"images": {0: "n"}, "scores": {0: "n"}}, dynamo=False)
    proto = onnx.load_from_string(buffer.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    out.append(repr([(o.domain, o.version) for o in proto.opset_import]))
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    out.append(repr([(i.name, i.shape) for i in session.get_inputs() + session.get_outputs()]))
    fresh = torch.randn(5, 3, 16, 16)
    (scores,) = session.run(None, {"images": fresh.numpy()})
    with torch.no_grad():
        eager = model(fresh).numpy()
    out += [round(float(np.abs(scores - eager).max()), 4)] + scores[:2].ravel().tolist()
    out += [int(i) for i in scores.argmax(1)]
    # Training mode is untouched by the export: the model trains on afterwards.
    out.append(str(model.training))
    return out
