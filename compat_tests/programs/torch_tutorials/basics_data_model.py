""""Learn the Basics: Datasets & DataLoaders" and "Build the Neural Network": a custom Dataset with
transform / target_transform callables (ToTensor-like scaling, Lambda one-hot with scatter_), iterating a
shuffled DataLoader, then NeuralNetwork with nn.Flatten + nn.Sequential(Linear, ReLU...), print(model), Softmax
predictions, the layer-by-layer walk-through and the named_parameters listing."""

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Lambda:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x):
        return self.fn(x)


class ToTensor:
    def __call__(self, image):
        return torch.tensor(image, dtype=torch.float32).div(255).unsqueeze(0)


class CustomImageDataset(Dataset):
    def __init__(self, images, labels, transform=None, target_transform=None):
        self.img_labels = labels
        self.images = images
        self.transform = transform
        self.target_transform = target_transform

    def __len__(self):
        return len(self.img_labels)

    def __getitem__(self, idx):
        image = self.images[idx]
        label = self.img_labels[idx]
        if self.transform:
            image = self.transform(image)
        if self.target_transform:
            label = self.target_transform(label)
        return image, label


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(12 * 12, 64),
            nn.ReLU(),
            nn.Linear(64, 64),
            nn.ReLU(),
            nn.Linear(64, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


def main():
    torch.manual_seed(0)
    images = torch.randint(0, 256, (40, 12, 12)).tolist()
    labels = torch.randint(0, 10, (40,)).tolist()
    target = Lambda(lambda y: torch.zeros(10, dtype=torch.float).scatter_(0, torch.tensor(y), value=1))
    training_data = CustomImageDataset(images, labels, transform=ToTensor(), target_transform=target)
    out = [len(training_data)]
    img, label = training_data[3]
    out += [str(img.shape), repr(label), float(img.sum())]

    train_dataloader = DataLoader(training_data, batch_size=8, shuffle=True)
    train_features, train_labels = next(iter(train_dataloader))
    out += [f"Feature batch shape: {train_features.size()}", f"Labels batch shape: {train_labels.size()}"]
    out += [float(train_features[0].squeeze().sum()), repr(train_labels[0])]

    device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
    out.append(f"Using {device} device")
    model = NeuralNetwork().to(device)
    out.append(str(model))

    X = torch.rand(1, 12, 12, device=device)
    logits = model(X)
    pred_probab = nn.Softmax(dim=1)(logits)
    y_pred = pred_probab.argmax(1)
    out += [f"Predicted class: {y_pred}"] + pred_probab.flatten().tolist()

    input_image = torch.rand(3, 12, 12)
    out.append(str(input_image.size()))
    flatten = nn.Flatten()
    flat_image = flatten(input_image)
    out.append(str(flat_image.size()))
    layer1 = nn.Linear(in_features=12 * 12, out_features=20)
    hidden1 = layer1(flat_image)
    out.append(str(hidden1.size()))
    out.append(f"Before ReLU: {hidden1}\n\n")
    hidden1 = nn.ReLU()(hidden1)
    out.append(f"After ReLU: {hidden1}")
    seq_modules = nn.Sequential(flatten, layer1, nn.ReLU(), nn.Linear(20, 10))
    logits = seq_modules(torch.rand(3, 12, 12))
    softmax = nn.Softmax(dim=1)
    pred_probab = softmax(logits)
    # the sums are 1 to within an ulp, each framework's own rounding of a sum of ten floats (its order differs
    # by CPU): the repr of their rounding, and the sums themselves as numbers
    out += [str(seq_modules), repr(pred_probab.sum(1).round(decimals=4))] + pred_probab.sum(1).tolist()

    out.append(f"Model structure: {model}\n\n")
    for name, param in model.named_parameters():
        out.append(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
    return out
