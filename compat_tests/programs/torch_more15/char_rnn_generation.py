""""NLP From Scratch: Generating Names with a Character-Level RNN": the category one-hot joined to the letter one-hot
and the hidden state (i2h / i2o / o2o with dropout and LogSoftmax), inputTensor / targetTensor with unsqueeze_(-1) on
a LongTensor, a loss summed over letters then divided by the length, manual updates with p.data.add_, and greedy /
top-k sampling of new names under torch.no_grad; then an nn.RNNCell / nn.GRU variant trained with RMSprop."""

import random
import string

import torch
import torch.nn as nn

all_letters = string.ascii_letters + " .,;'-"
n_letters = len(all_letters) + 1  # plus the EOS marker

CATEGORIES = {"German": ["Becker", "Hoffmann", "Koch", "Richter"],
              "Russian": ["Ivanov", "Petrov", "Sokolov", "Popov"],
              "Spanish": ["Garcia", "Lopez", "Martinez", "Sanchez"]}
all_categories = sorted(CATEGORIES)
n_categories = len(all_categories)


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(0.1)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, category, input, hidden):
        input_combined = torch.cat((category, input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        output_combined = torch.cat((hidden, output), 1)
        output = self.o2o(output_combined)
        output = self.dropout(output)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


def categoryTensor(category):
    li = all_categories.index(category)
    tensor = torch.zeros(1, n_categories)
    tensor[0][li] = 1
    return tensor


def inputTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li in range(len(line)):
        tensor[li][0][all_letters.find(line[li])] = 1
    return tensor


def targetTensor(line):
    letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(n_letters - 1)  # EOS
    return torch.LongTensor(letter_indexes)


class CellGenerator(nn.Module):
    """The same task with library cells: category embedding + letter one-hot -> RNNCell -> GRU -> Linear."""

    def __init__(self, hidden):
        super().__init__()
        self.embed = nn.Embedding(n_categories, 4)
        self.cell = nn.RNNCell(4 + n_letters, hidden, nonlinearity="relu")
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_letters)

    def forward(self, category_index, letters):
        cat = self.embed(category_index).expand(letters.shape[0], -1)
        h = torch.zeros(1, self.cell.hidden_size)
        states = []
        for step in range(letters.shape[0]):
            h = self.cell(torch.cat([cat[step:step + 1], letters[step]], dim=1), h)
            states.append(h)
        seq, _ = self.gru(torch.stack(states, dim=1))
        return self.out(seq[0])


def main():
    out = []
    torch.manual_seed(3)
    random.seed(3)
    rnn = RNN(n_letters, 24, n_letters)
    out += [str(rnn), n_letters, repr(targetTensor("Koch")), str(inputTensor("Koch").shape)]
    criterion = nn.NLLLoss()
    learning_rate = 0.0005 * 20

    def train(category_tensor, input_line_tensor, target_line_tensor):
        target_line_tensor.unsqueeze_(-1)
        hidden = rnn.initHidden()
        rnn.zero_grad()
        loss = torch.Tensor([0])
        for i in range(input_line_tensor.size(0)):
            output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
            loss += criterion(output, target_line_tensor[i])
        loss.backward()
        for p in rnn.parameters():
            p.data.add_(p.grad.data, alpha=-learning_rate)
        return output, loss.item() / input_line_tensor.size(0)

    def randomTrainingExample():
        category = random.choice(all_categories)
        line = random.choice(CATEGORIES[category])
        return categoryTensor(category), inputTensor(line), targetTensor(line)

    total_loss = 0
    for it in range(1, 31):
        output, loss = train(*randomTrainingExample())
        total_loss += loss
        if it % 3 == 0:
            out += [loss, total_loss / it, output.shape[1]]

    max_length = 8

    def sample(category, start_letter="A"):
        with torch.no_grad():
            category_tensor = categoryTensor(category)
            input = inputTensor(start_letter)
            hidden = rnn.initHidden()
            output_name = start_letter
            for _ in range(max_length):
                output, hidden = rnn(category_tensor, input[0], hidden)
                topv, topi = output.topk(1)
                topi = topi[0][0]
                if topi == n_letters - 1:
                    break
                letter = all_letters[topi]
                output_name += letter
                input = inputTensor(letter)
            return output_name

    rnn.eval()
    for category in all_categories:
        for start in "GRS":
            out.append(sample(category, start))
    out.append(rnn.training)

    torch.manual_seed(4)
    gen = CellGenerator(16)
    opt = torch.optim.RMSprop(gen.parameters(), lr=0.01, alpha=0.9, momentum=0.5)
    for step in range(8):
        category = all_categories[step % n_categories]
        line = CATEGORIES[category][step % 4]
        logits = gen(torch.tensor([all_categories.index(category)]), inputTensor(line))
        loss = nn.functional.cross_entropy(logits, targetTensor(line))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), gen.cell.weight_hh.grad.abs().sum().item()]
    with torch.no_grad():
        probs = torch.softmax(gen(torch.tensor([1]), inputTensor("Pop")), dim=1)
        out += probs.max(dim=1).values.tolist() + probs.argmax(dim=1).tolist()
    return out
