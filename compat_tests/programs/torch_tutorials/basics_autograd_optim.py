""""Learn the Basics: Automatic Differentiation", "Optimizing Model Parameters" and "Save and Load the Model":
the one-layer example with grad_fn names, requires_grad_/detach/no_grad, Jacobian-vector products with
backward(gradient) and retain_graph, the train_loop/test_loop functions with their prints, and saving the
state_dict to a buffer, loading it back with weights_only=True into a fresh model."""

import io

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(nn.Linear(8 * 8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(),
                                               nn.Linear(32, 10))

    def forward(self, x):
        x = self.flatten(x)
        return self.linear_relu_stack(x)


def train_loop(dataloader, model, loss_fn, optimizer, batch_size, out):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 2 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            # The tutorial prints f"loss: {loss:>7f}  [...]"; the loss's 6th decimal is float32 round-off.
            out += [loss, f"[{current:>5d}/{size:>5d}]"]


def test_loop(dataloader, model, loss_fn, out):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    out += [f"Test Error: \n Accuracy: {(100*correct):>0.1f}%", test_loss]


def main():
    out = []
    torch.manual_seed(0)
    x = torch.ones(5)
    y = torch.zeros(3)
    w = torch.randn(5, 3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    out += [f"Gradient function for z = {z.grad_fn}".split(" object")[0],
            f"Gradient function for loss = {loss.grad_fn}".split(" object")[0]]
    loss.backward()
    out += [str(w.grad), str(b.grad)]

    z = torch.matmul(x, w) + b
    out.append(z.requires_grad)
    with torch.no_grad():
        z = torch.matmul(x, w) + b
    out.append(z.requires_grad)
    z = torch.matmul(x, w) + b
    z_det = z.detach()
    out.append(z_det.requires_grad)

    inp = torch.eye(4, 5, requires_grad=True)
    out_t = (inp + 1).pow(2).t()
    out_t.backward(torch.ones_like(out_t), retain_graph=True)
    out.append(f"First call\n{inp.grad}")
    out_t.backward(torch.ones_like(out_t), retain_graph=True)
    out.append(f"\nSecond call\n{inp.grad}")
    inp.grad.zero_()
    out_t.backward(torch.ones_like(out_t), retain_graph=True)
    out.append(f"\nCall after zeroing gradients\n{inp.grad}")

    a = torch.randn(3).requires_grad_()
    out.append(repr(a.requires_grad_(False)))

    images = torch.rand(96, 8, 8)
    labels = (images.mean((1, 2)) * 40).long() % 10
    training_data = TensorDataset(images[:64], labels[:64])
    test_data = TensorDataset(images[64:], labels[64:])
    learning_rate, batch_size, epochs = 1e-1, 16, 3
    train_dataloader = DataLoader(training_data, batch_size=batch_size, shuffle=True)
    test_dataloader = DataLoader(test_data, batch_size=batch_size)
    model = NeuralNetwork()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    for t in range(epochs):
        out.append(f"Epoch {t+1}\n-------------------------------")
        train_loop(train_dataloader, model, loss_fn, optimizer, batch_size, out)
        test_loop(test_dataloader, model, loss_fn, out)
    out.append("Done!")

    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    model2 = NeuralNetwork()
    result = model2.load_state_dict(torch.load(buffer, weights_only=True))
    out.append(repr(result))
    model2.eval()
    out.append(repr(model2.training))
    with torch.no_grad():
        out += model2(test_data[0][0].unsqueeze(0)).flatten().tolist()
    return out
