"""The "Adversarial Example Generation" (FGSM) tutorial: a LeNet-style net with Dropout/dropout and log_softmax
trained briefly, then attacked in eval mode: data.requires_grad = True, F.nll_loss, model.zero_grad(),
data.grad.data, fgsm_attack with data_grad.sign() and torch.clamp, a denorm of the normalized input, accuracy per
epsilon and adv_examples kept with squeeze().detach().cpu().numpy(); then FGSM / PGD adversarial training steps."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.conv2 = nn.Conv2d(4, 8, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(8 * 4 * 4, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def fgsm_attack(image, epsilon, data_grad):
    sign_data_grad = data_grad.sign()
    perturbed_image = image + epsilon * sign_data_grad
    perturbed_image = torch.clamp(perturbed_image, 0, 1)
    return perturbed_image


def denorm(batch, mean=(0.1307,), std=(0.3081,)):
    if isinstance(mean, (list, tuple)):
        mean = torch.tensor(mean)
    if isinstance(std, (list, tuple)):
        std = torch.tensor(std)
    return batch * std.view(1, -1, 1, 1) + mean.view(1, -1, 1, 1)


def make_data(n, generator):
    labels = torch.arange(n) % 3
    images = torch.rand(n, 1, 12, 12, generator=generator) * 0.3
    images[labels == 0, :, 2:6, 2:10] += 0.6
    images[labels == 1, :, 6:10, 2:10] += 0.6
    images[labels == 2, :, 2:10, 4:8] += 0.6
    return (images.clamp(0, 1) - 0.1307) / 0.3081, labels


def test(model, device, test_loader, epsilon):
    correct = 0
    adv_examples = []
    for data, target in test_loader:
        data, target = data.to(device), target.to(device)
        data.requires_grad = True
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]
        if init_pred.item() != target.item():
            continue
        loss = F.nll_loss(output, target)
        model.zero_grad()
        loss.backward()
        data_grad = data.grad.data
        data_denorm = denorm(data)
        perturbed_data = fgsm_attack(data_denorm, epsilon, data_grad)
        perturbed_data_normalized = (perturbed_data - 0.1307) / 0.3081
        output = model(perturbed_data_normalized)
        final_pred = output.max(1, keepdim=True)[1]
        if final_pred.item() == target.item():
            correct += 1
            if epsilon == 0 and len(adv_examples) < 2:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
        else:
            if len(adv_examples) < 2:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
    final_acc = correct / float(len(test_loader))
    return final_acc, adv_examples


def main():
    out = []
    torch.manual_seed(42)
    device = torch.device("cpu")
    gen = torch.Generator().manual_seed(0)
    x_train, y_train = make_data(48, gen)
    x_test, y_test = make_data(12, gen)
    train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=16, shuffle=True)
    test_loader = DataLoader(TensorDataset(x_test, y_test), batch_size=1, shuffle=True)
    model = Net().to(device)
    out.append(str(model))
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    for _epoch in range(3):
        model.train()
        for data, target in train_loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
            out.append(loss.item())
        scheduler.step()
        out.append(scheduler.get_last_lr()[0])
    model.eval()

    epsilons = [0, .05, .1, .3]
    for eps in epsilons:
        acc, ex = test(model, device, test_loader, eps)
        out += [acc, len(ex)]
        for init_pred, final_pred, adv_ex in ex:
            out += [init_pred, final_pred, float(adv_ex.sum()), str(adv_ex.shape), str(adv_ex.dtype)]

    # adversarial training: FGSM examples mixed into each batch, then a 3-step PGD evaluation
    opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    for data, target in train_loader:
        model.train()
        delta = torch.zeros_like(data, requires_grad=True)
        F.nll_loss(model(data + delta), target).backward()
        adv = (data + 0.2 * delta.grad.sign()).detach()
        opt.zero_grad()
        loss = 0.5 * F.nll_loss(model(data), target) + 0.5 * F.nll_loss(model(adv), target)
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    x_adv = x_test.clone()
    for _ in range(3):
        x_adv.requires_grad_(True)
        loss = F.nll_loss(model(x_adv), y_test, reduction="sum")
        grad, = torch.autograd.grad(loss, [x_adv])
        x_adv = x_adv.detach() + 0.1 * grad.sign()
        x_adv = torch.min(torch.max(x_adv, x_test - 0.3), x_test + 0.3)
        out.append(loss.item())
    with torch.no_grad():
        out.append((model(x_adv).argmax(1) == y_test).float().mean().item())
        out.append((x_adv - x_test).abs().max().item())
    return out
