""""Saving and Loading Models": state_dict prints of a TheModelClass and its optimizer (SGD with momentum),
saving/loading a general checkpoint dict (epoch, model and optimizer state, loss) and resuming training, several
models in one file, warm-starting a different model with load_state_dict(strict=False), model.eval() vs
model.train() and the missing/unexpected keys reported."""

import io

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class TheModelClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


class NetB(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.bn = nn.BatchNorm2d(6)
        self.fc4 = nn.Linear(10, 2)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.bn(self.conv1(x))).mean((2, 3))


def train_steps(model, optimizer, x, y, n, out):
    for _ in range(n):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        out.append(loss.item())
    return loss


def main():
    out = []
    torch.manual_seed(0)
    model = TheModelClass()
    optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    out.append("Model's state_dict:")
    for param_tensor in model.state_dict():
        out.append(f"{param_tensor}\t{model.state_dict()[param_tensor].size()}")
    out.append("Optimizer's state_dict:")
    for var_name in optimizer.state_dict():
        out.append(f"{var_name}\t{optimizer.state_dict()[var_name]}")

    x, y = torch.randn(4, 3, 32, 32), torch.tensor([1, 2, 3, 4])
    loss = train_steps(model, optimizer, x, y, 3, out)
    epoch = 3
    buffer = io.BytesIO()
    torch.save({
        'epoch': epoch,
        'model_state_dict': model.state_dict(),
        'optimizer_state_dict': optimizer.state_dict(),
        'loss': loss,
    }, buffer)
    out.append(repr(sorted(optimizer.state_dict()["state"].keys())))

    buffer.seek(0)
    model2 = TheModelClass()
    optimizer2 = optim.SGD(model2.parameters(), lr=0.1)
    checkpoint = torch.load(buffer, weights_only=True)
    out.append(repr(model2.load_state_dict(checkpoint['model_state_dict'])))
    optimizer2.load_state_dict(checkpoint['optimizer_state_dict'])
    epoch = checkpoint['epoch']
    loss = checkpoint['loss']
    out += [epoch, repr(loss), repr(sorted(checkpoint.keys())), repr(optimizer2.param_groups[0]["lr"])]
    model2.eval()
    out.append(repr(model2.training))
    model2.train()
    train_steps(model2, optimizer2, x, y, 2, out)
    train_steps(model, optimizer, x, y, 2, out)
    out += [float((p - q).abs().max()) for p, q in zip(model.parameters(), model2.parameters())]

    modelA, modelB = TheModelClass(), NetB()
    optimizerA = optim.Adam(modelA.parameters(), lr=1e-3)
    optimizerB = optim.Adam(modelB.parameters(), lr=1e-3)
    train_steps(modelA, optimizerA, x, y, 1, out)
    modelB(x).sum().backward()
    optimizerB.step()
    buffer = io.BytesIO()
    torch.save({'modelA_state_dict': modelA.state_dict(), 'modelB_state_dict': modelB.state_dict(),
                'optimizerA_state_dict': optimizerA.state_dict(), 'optimizerB_state_dict': optimizerB.state_dict()},
               buffer)
    buffer.seek(0)
    checkpoint = torch.load(buffer, weights_only=True)
    out.append(repr(list(checkpoint['modelB_state_dict'].keys())))
    out.append(repr(checkpoint['optimizerB_state_dict']['param_groups']))
    out.append(repr(checkpoint['optimizerA_state_dict']['state'][0]['step']))

    buffer = io.BytesIO()
    torch.save(modelA.state_dict(), buffer)
    buffer.seek(0)
    modelB2 = NetB()
    result = modelB2.load_state_dict(torch.load(buffer, weights_only=True), strict=False)
    out += [repr(result), repr(result.missing_keys), repr(result.unexpected_keys)]
    out.append(float((modelB2.conv1.weight - modelA.conv1.weight).abs().sum()))
    try:
        modelB2.load_state_dict(modelA.state_dict())
    except RuntimeError as e:
        out.append(str(e))
    modelB2.eval()
    with torch.no_grad():
        out += modelB2(x).flatten().tolist()
    out.append(repr(modelB2.bn.num_batches_tracked))
    return out
