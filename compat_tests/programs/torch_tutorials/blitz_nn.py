""""Deep Learning with PyTorch: A 60 Minute Blitz", Neural Networks: LeNet with conv/max_pool2d/flatten, print(net),
net.parameters(), a random input, zero_grad and backward with random gradients, MSELoss with grad_fn chains,
bias gradients before and after backward, the manual SGD update and optim.SGD; then the blitz's "Tensors" and
"Autograd" sections (Q = 3a^3 - b^2 with external_grad, frozen resnet-like fine-tuning)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        output = self.fc3(f6)
        return output


def main():
    out = []
    torch.manual_seed(0)
    net = Net()
    out.append(str(net))
    params = list(net.parameters())
    out += [len(params), str(params[0].size())]

    input = torch.randn(1, 1, 32, 32)
    output = net(input)
    out.append(str(output))
    net.zero_grad()
    output.backward(torch.randn(1, 10))
    out += net.conv1.bias.grad.tolist()

    output = net(input)
    target = torch.randn(10)
    target = target.view(1, -1)
    criterion = nn.MSELoss()
    loss = criterion(output, target)
    out.append(str(loss))
    out.append(loss.grad_fn.name())
    out.append(type(loss.grad_fn.next_functions[0][0]).__name__)

    net.zero_grad()
    out.append(repr(net.conv1.bias.grad))
    loss.backward()
    out.append(str(net.conv1.bias.grad))

    learning_rate = 0.01
    for f in net.parameters():
        f.data.sub_(f.grad.data * learning_rate)
    optimizer = optim.SGD(net.parameters(), lr=0.01)
    for _ in range(5):
        optimizer.zero_grad()
        output = net(input)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()
        out.append(loss.item())
    out.append(repr(optimizer.state_dict()))

    a = torch.tensor([2., 3.], requires_grad=True)
    b = torch.tensor([6., 4.], requires_grad=True)
    Q = 3 * a ** 3 - b ** 2
    external_grad = torch.tensor([1., 1.])
    Q.backward(gradient=external_grad)
    out += [repr(9 * a ** 2 == a.grad), repr(-2 * b == b.grad), repr(Q)]

    x = torch.rand(5, 5)
    y = torch.rand(5, 5)
    z = torch.rand((5, 5), requires_grad=True)
    a = x + y
    out.append(f"Does `a` require gradients?: {a.requires_grad}")
    b = x + z
    out.append(f"Does `b` require gradients?: {b.requires_grad}")

    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    model.fc = nn.Linear(4, 10)
    for param in model.parameters():
        param.requires_grad = False
    model.fc = nn.Linear(4, 10)
    optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    for _ in range(3):
        optimizer.zero_grad()
        loss = model(torch.rand(2, 3, 8, 8)).pow(2).mean()
        loss.backward()
        optimizer.step()
        out.append(loss.item())
    out.append(repr([n for n, p in model.named_parameters() if p.requires_grad]))
    out.append(repr(model[0].weight.grad))
    return out
