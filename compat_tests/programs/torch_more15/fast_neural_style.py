"""pytorch/examples fast_neural_style: TransformerNet (ReflectionPad2d convs, InstanceNorm2d(affine=True), residual
blocks, UpsampleConvLayer with F.interpolate(mode='nearest', scale_factor=2)), a frozen feature net split into slices
with add_module / namedtuple outputs, gram_matrix with bmm, normalize_batch with new_tensor / div_(255.0), content +
style MSE losses with Adam; then checkpoint cleanup of old running stats with re and a BytesIO torch.save/load, and
torch.compile(model)'s state_dict keys."""

import io
import re
from collections import namedtuple

import torch


class ConvLayer(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super().__init__()
        reflection_padding = kernel_size // 2
        self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
        self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        out = self.reflection_pad(x)
        out = self.conv2d(out)
        return out


class ResidualBlock(torch.nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.relu = torch.nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        out = out + residual
        return out


class UpsampleConvLayer(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super().__init__()
        self.upsample = upsample
        reflection_padding = kernel_size // 2
        self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
        self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        x_in = x
        if self.upsample:
            x_in = torch.nn.functional.interpolate(x_in, mode='nearest', scale_factor=self.upsample)
        out = self.reflection_pad(x_in)
        out = self.conv2d(out)
        return out


class TransformerNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ConvLayer(3, 4, kernel_size=5, stride=1)
        self.in1 = torch.nn.InstanceNorm2d(4, affine=True)
        self.conv2 = ConvLayer(4, 8, kernel_size=3, stride=2)
        self.in2 = torch.nn.InstanceNorm2d(8, affine=True)
        self.res1 = ResidualBlock(8)
        self.res2 = ResidualBlock(8)
        self.deconv1 = UpsampleConvLayer(8, 4, kernel_size=3, stride=1, upsample=2)
        self.in4 = torch.nn.InstanceNorm2d(4, affine=True)
        self.deconv3 = ConvLayer(4, 3, kernel_size=5, stride=1)
        self.relu = torch.nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.res1(y)
        y = self.res2(y)
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.deconv3(y)
        return y


class Features(torch.nn.Module):
    """Stands in for VGG16's relu1_2 ... relu4_3 slices: frozen random convolutions cut into four slices."""

    def __init__(self, requires_grad=False):
        super().__init__()
        layers = [torch.nn.Conv2d(3, 6, 3, padding=1), torch.nn.ReLU(inplace=True),
                  torch.nn.Conv2d(6, 6, 3, padding=1), torch.nn.ReLU(inplace=True), torch.nn.MaxPool2d(2, 2),
                  torch.nn.Conv2d(6, 8, 3, padding=1), torch.nn.ReLU(inplace=True), torch.nn.MaxPool2d(2, 2),
                  torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(inplace=True)]
        self.slice1 = torch.nn.Sequential()
        self.slice2 = torch.nn.Sequential()
        self.slice3 = torch.nn.Sequential()
        self.slice4 = torch.nn.Sequential()
        for x in range(2):
            self.slice1.add_module(str(x), layers[x])
        for x in range(2, 4):
            self.slice2.add_module(str(x), layers[x])
        for x in range(4, 7):
            self.slice3.add_module(str(x), layers[x])
        for x in range(7, 10):
            self.slice4.add_module(str(x), layers[x])
        if not requires_grad:
            for param in self.parameters():
                param.requires_grad = False

    def forward(self, X):
        h = self.slice1(X)
        h_relu1_2 = h
        h = self.slice2(h)
        h_relu2_2 = h
        h = self.slice3(h)
        h_relu3_3 = h
        h = self.slice4(h)
        h_relu4_3 = h
        vgg_outputs = namedtuple("VggOutputs", ['relu1_2', 'relu2_2', 'relu3_3', 'relu4_3'])
        out = vgg_outputs(h_relu1_2, h_relu2_2, h_relu3_3, h_relu4_3)
        return out


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    gram = features.bmm(features_t) / (ch * h * w)
    return gram


def normalize_batch(batch):
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch.div_(255.0)
    return (batch - mean) / std


def main():
    out = []
    torch.manual_seed(42)
    transformer = TransformerNet()
    optimizer = torch.optim.Adam(transformer.parameters(), 1e-3)
    mse_loss = torch.nn.MSELoss()
    vgg = Features(requires_grad=False)
    out += [str(vgg.slice3), sum(p.numel() for p in transformer.parameters())]
    style = torch.rand(1, 3, 16, 16) * 255
    style = style.repeat(2, 1, 1, 1)
    features_style = vgg(normalize_batch(style))
    gram_style = [gram_matrix(y) for y in features_style]
    out += [g.sum().item() for g in gram_style]
    content_weight, style_weight = 1e5, 1e10
    images = torch.rand(6, 3, 16, 16) * 255
    for batch_id in range(3):
        x = images[2 * batch_id:2 * batch_id + 2].clone()
        n_batch = len(x)
        optimizer.zero_grad()
        y = transformer(x)
        y = normalize_batch(y)
        x = normalize_batch(x)
        features_y = vgg(y)
        features_x = vgg(x)
        content_loss = content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)
        style_loss = 0.
        for ft_y, gm_s in zip(features_y, gram_style):
            gm_y = gram_matrix(ft_y)
            style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :])
        style_loss *= style_weight
        total_loss = content_loss + style_loss
        total_loss.backward()
        optimizer.step()
        out += [content_loss.item(), style_loss.item(), total_loss.item()]
    out += [transformer.in1.weight.sum().item(), transformer.res1.in2.weight.abs().sum().item()]
    # (the instance-norm biases feeding a conv + instance norm get an exactly zero gradient: Adam's steps on them
    # follow round-off, so they are not printed)

    # old checkpoints carried InstanceNorm running stats: the example strips them with a regex before loading
    state_dict = transformer.state_dict()
    state_dict["in1.running_mean"] = torch.zeros(4)
    state_dict["res1.in1.running_var"] = torch.ones(8)
    buffer = io.BytesIO()
    torch.save(state_dict, buffer)
    buffer.seek(0)
    state_dict = torch.load(buffer)
    for k in list(state_dict.keys()):
        if re.search(r'in\d+\.running_(mean|var)$', k):
            del state_dict[k]
    style_model = TransformerNet()
    out.append(repr(style_model.load_state_dict(state_dict)))
    style_model.eval()
    with torch.no_grad():
        content_image = torch.rand(1, 3, 12, 12) * 255
        output = style_model(content_image).cpu()
        img = output[0].clone().clamp(0, 255).numpy()
        img = img.transpose(1, 2, 0).astype("uint8")
        out += [str(output.shape), str(img.shape), int(img.sum()), output.mean().item()]
    compiled = torch.compile(style_model)
    out += [type(compiled).__name__, ",".join(list(compiled.state_dict().keys())[:5])]
    return out
