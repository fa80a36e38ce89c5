"""Neural style transfer in the style of the PyTorch tutorial, on a small random conv "feature extractor": content
and style losses as nn.Modules inserted after chosen layers of a rebuilt nn.Sequential (add_module, named
children, isinstance checks, ReLU(inplace=False) replacements), gram matrices with bmm divided by the element
count, a Normalization module with view(-1, 1, 1) buffers, requires_grad_(False) on the network, then LBFGS with
the strong Wolfe line search optimizing the input image itself, with a closure that clamps it in place under
torch.no_grad; also the Adam variant with total-variation regularisation."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def gram_matrix(x):
    b, c, h, w = x.size()
    features = x.view(b, c, h * w)
    return torch.bmm(features, features.transpose(1, 2)).div(c * h * w)


class ContentLoss(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target.detach()
        self.loss = torch.tensor(0.0)

    def forward(self, x):
        self.loss = F.mse_loss(x, self.target)
        return x


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super().__init__()
        self.target = gram_matrix(target_feature).detach()
        self.loss = torch.tensor(0.0)

    def forward(self, x):
        self.loss = F.mse_loss(gram_matrix(x), self.target)
        return x


class Normalization(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean).view(-1, 1, 1))
        self.register_buffer("std", torch.tensor(std).view(-1, 1, 1))

    def forward(self, img):
        return (img - self.mean) / self.std


def build(cnn, style_img, content_img, content_layers=("conv_3",), style_layers=("conv_1", "conv_2", "conv_3")):
    model = nn.Sequential(Normalization([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]))
    content_losses, style_losses = [], []
    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = f"conv_{i}"
        elif isinstance(layer, nn.ReLU):
            name = f"relu_{i}"
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = f"pool_{i}"
        else:
            raise RuntimeError(f"Unrecognized layer: {layer.__class__.__name__}")
        model.add_module(name, layer)
        if name in content_layers:
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module(f"content_loss_{i}", content_loss)
            content_losses.append(content_loss)
        if name in style_layers:
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module(f"style_loss_{i}", style_loss)
            style_losses.append(style_loss)
    return model, style_losses, content_losses


def main():
    torch.manual_seed(0)
    cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(8, 8, 3, padding=1),
                        nn.ReLU(inplace=True), nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1),
                        nn.ReLU(inplace=True)).eval()
    yy, xx = torch.meshgrid(torch.linspace(0, 1, 16), torch.linspace(0, 1, 16), indexing="ij")
    style_img = torch.stack([torch.sin(8 * xx) * 0.5 + 0.5, torch.cos(8 * yy) * 0.5 + 0.5, xx * yy]).unsqueeze(0)
    content_img = torch.stack([xx, yy, 1 - xx]).unsqueeze(0)
    model, style_losses, content_losses = build(cnn, style_img, content_img)
    model.requires_grad_(False)
    out = [" ".join(name for name, _ in model.named_children())]
    input_img = content_img.clone()
    input_img.requires_grad_(True)
    optimizer = torch.optim.LBFGS([input_img], max_iter=10, line_search_fn="strong_wolfe")
    style_weight, content_weight = 1e4, 1.0
    run = [0]
    while run[0] <= 20:
        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = sum(sl.loss for sl in style_losses) * style_weight
            content_score = sum(cl.loss for cl in content_losses) * content_weight
            loss = style_score + content_score
            loss.backward()
            run[0] += 1
            if run[0] % 5 == 0:
                out.extend([style_score.item(), content_score.item()])
            return style_score + content_score

        optimizer.step(closure)
    with torch.no_grad():
        input_img.clamp_(0, 1)
    out += [input_img.mean().item(), input_img.std().item(), run[0]]
    out += [len(optimizer.state[input_img]["old_dirs"]), optimizer.state[input_img]["n_iter"]]
    # Adam on the pixels with a total-variation term.
    img = torch.rand(1, 3, 16, 16, requires_grad=True)
    adam = torch.optim.Adam([img], lr=0.05)
    for _ in range(10):
        adam.zero_grad()
        model(img)
        tv = (img[..., 1:, :] - img[..., :-1, :]).abs().mean() + (img[..., :, 1:] - img[..., :, :-1]).abs().mean()
        loss = 1e4 * sum(sl.loss for sl in style_losses) + content_losses[0].loss + 0.1 * tv
        loss.backward()
        adam.step()
        img.data.clamp_(0, 1)
        out.append(loss.item())
    out += gram_matrix(style_img).flatten().tolist()
    return out
