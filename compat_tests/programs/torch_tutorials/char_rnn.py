""""NLP From Scratch: Classifying Names with a Character-Level RNN": unicodeToAscii, one-hot letter tensors
(letterToTensor / lineToTensor), the tutorial's custom RNN module (i2h/h2o with torch.cat and LogSoftmax), a
categoryFromOutput with topk, training with NLLLoss and the manual SGD update p.data.add_(p.grad.data, alpha=-lr),
then the newer nn.RNN CharRNN variant with a Dataset, random_split and an SGD optimizer with clip_grad_norm_."""

import random
import string
import unicodedata

import torch
import torch.nn as nn
from torch.utils.data import Dataset, random_split

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)

NAMES = {"English": ["Smith", "Jones", "Taylor", "Brown", "Wilson", "Evans"],
         "French": ["Dubois", "Lefèvre", "Moreau", "Girard", "Fontaine", "Chevalier"],
         "Japanese": ["Satō", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Itō"],
         "Italian": ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano"]}


def unicodeToAscii(s):
    return ''.join(c for c in unicodedata.normalize('NFD', s)
                   if unicodedata.category(c) != 'Mn' and c in all_letters)


def letterToIndex(letter):
    return all_letters.find(letter)


def letterToTensor(letter):
    tensor = torch.zeros(1, n_letters)
    tensor[0][letterToIndex(letter)] = 1
    return tensor


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.h2o(combined)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        output = self.softmax(output)
        return output


class NamesDataset(Dataset):
    def __init__(self):
        self.labels_uniq = sorted(NAMES)
        self.data, self.data_tensors, self.labels, self.labels_tensors = [], [], [], []
        for label in self.labels_uniq:
            for name in NAMES[label]:
                ascii_name = unicodeToAscii(name)
                self.data.append(ascii_name)
                self.data_tensors.append(lineToTensor(ascii_name))
                self.labels.append(label)
        for label in self.labels:
            self.labels_tensors.append(torch.tensor([self.labels_uniq.index(label)], dtype=torch.long))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        return self.labels_tensors[idx], self.data_tensors[idx], self.labels[idx], self.data[idx]


def main():
    out = []
    torch.manual_seed(0)
    random.seed(0)
    all_categories = sorted(NAMES)
    category_lines = {c: [unicodeToAscii(n) for n in NAMES[c]] for c in all_categories}
    out += [n_letters, unicodeToAscii('Ślusàrski'), repr(letterToTensor('J')), str(lineToTensor('Jones').size())]

    n_hidden = 32
    rnn = RNN(n_letters, n_hidden, len(all_categories))
    out.append(str(rnn))
    input = lineToTensor('Albert')
    hidden = torch.zeros(1, n_hidden)
    output, next_hidden = rnn(input[0], hidden)
    out.append(str(output))

    def categoryFromOutput(output):
        top_n, top_i = output.topk(1)
        category_i = top_i[0].item()
        return all_categories[category_i], category_i
    out.append(repr(categoryFromOutput(output)))

    criterion = nn.NLLLoss()
    learning_rate = 0.005

    def train(category_tensor, line_tensor):
        hidden = rnn.initHidden()
        rnn.zero_grad()
        for i in range(line_tensor.size()[0]):
            output, hidden = rnn(line_tensor[i], hidden)
        loss = criterion(output, category_tensor)
        loss.backward()
        for p in rnn.parameters():
            p.data.add_(p.grad.data, alpha=-learning_rate)
        return output, loss.item()

    for it in range(40):
        category = all_categories[random.randint(0, len(all_categories) - 1)]
        line = random.choice(category_lines[category])
        category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
        line_tensor = lineToTensor(line)
        output, loss = train(category_tensor, line_tensor)
        if it % 5 == 4:
            guess, guess_i = categoryFromOutput(output)
            out += [loss, f"{line} / {guess} {'✓' if guess == category else f'✗ ({category})'}"]

    alldata = NamesDataset()
    train_set, test_set = random_split(alldata, [.75, .25], generator=torch.Generator().manual_seed(2024))
    out += [len(train_set), len(test_set), repr(alldata[0])]
    model = CharRNN(n_letters, 16, len(alldata.labels_uniq))
    out.append(str(model))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.15)
    criterion = nn.NLLLoss()
    model.train()
    for _ in range(3):
        batches = list(range(len(train_set)))
        random.shuffle(batches)
        batches = [batches[i:i + 4] for i in range(0, len(batches), 4)]
        for batch in batches:
            batch_loss = 0
            for i in batch:
                label_tensor, text_tensor, label, text = train_set[i]
                output = model.forward(text_tensor)
                loss = criterion(output, label_tensor)
                batch_loss += loss
            batch_loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 3)
            optimizer.step()
            optimizer.zero_grad()
            out.append(batch_loss.item() / len(batch))
    model.eval()
    with torch.no_grad():
        for i in range(len(test_set)):
            label_tensor, text_tensor, label, text = test_set[i]
            output = model(text_tensor)
            out.append(alldata.labels_uniq[output.topk(1)[1][0].item()])
    return out
