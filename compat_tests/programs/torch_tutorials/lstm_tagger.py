""""Sequence Models and Long Short-Term Memory Networks" and "Word Embeddings: Encoding Lexical Semantics":
the step-by-step nn.LSTM example with (hidden, cell) tuples, the LSTMTagger part-of-speech tagger on the toy corpus
(prepare_sequence, word_to_ix, log_softmax scores before and after training), nn.Embedding lookups, the N-gram
language model on the sonnet excerpt (trigrams, NLLLoss, optim.SGD) and the CBOW context-to-vector helper."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


def prepare_sequence(seq, to_ix):
    idxs = [to_ix[w] for w in seq]
    return torch.tensor(idxs, dtype=torch.long)


class LSTMTagger(nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        tag_scores = F.log_softmax(tag_space, dim=1)
        return tag_scores


class NGramLanguageModeler(nn.Module):
    def __init__(self, vocab_size, embedding_dim, context_size):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.linear1 = nn.Linear(context_size * embedding_dim, 128)
        self.linear2 = nn.Linear(128, vocab_size)

    def forward(self, inputs):
        embeds = self.embeddings(inputs).view((1, -1))
        out = F.relu(self.linear1(embeds))
        out = self.linear2(out)
        log_probs = F.log_softmax(out, dim=1)
        return log_probs


def main():
    out = []
    torch.manual_seed(1)
    lstm = nn.LSTM(3, 3)
    inputs = [torch.randn(1, 3) for _ in range(5)]
    hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
    for i in inputs:
        o, hidden = lstm(i.view(1, 1, -1), hidden)
    inputs = torch.cat(inputs).view(len(inputs), 1, -1)
    hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
    o, hidden = lstm(inputs, hidden)
    out += [str(o), str(hidden)]

    training_data = [
        ("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
        ("Everybody read that book".split(), ["NN", "V", "DET", "NN"]),
    ]
    word_to_ix = {}
    for sent, _ in training_data:
        for word in sent:
            if word not in word_to_ix:
                word_to_ix[word] = len(word_to_ix)
    out.append(repr(word_to_ix))
    tag_to_ix = {"DET": 0, "NN": 1, "V": 2}
    EMBEDDING_DIM = 6
    HIDDEN_DIM = 6
    model = LSTMTagger(EMBEDDING_DIM, HIDDEN_DIM, len(word_to_ix), len(tag_to_ix))
    loss_function = nn.NLLLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    with torch.no_grad():
        inputs = prepare_sequence(training_data[0][0], word_to_ix)
        tag_scores = model(inputs)
        out.append(str(tag_scores))
    for epoch in range(60):
        for sentence, tags in training_data:
            model.zero_grad()
            sentence_in = prepare_sequence(sentence, word_to_ix)
            targets = prepare_sequence(tags, tag_to_ix)
            tag_scores = model(sentence_in)
            loss = loss_function(tag_scores, targets)
            loss.backward()
            optimizer.step()
        if epoch % 10 == 9:
            out.append(loss.item())
    with torch.no_grad():
        inputs = prepare_sequence(training_data[0][0], word_to_ix)
        tag_scores = model(inputs)
        out += tag_scores.flatten().tolist() + [repr(tag_scores.argmax(1))]

    word_to_ix = {"hello": 0, "world": 1}
    embeds = nn.Embedding(2, 5)
    lookup_tensor = torch.tensor([word_to_ix["hello"]], dtype=torch.long)
    hello_embed = embeds(lookup_tensor)
    out.append(str(hello_embed))

    CONTEXT_SIZE = 2
    EMBEDDING_DIM = 10
    test_sentence = """When forty winters shall besiege thy brow,
And dig deep trenches in thy beauty's field,
Thy youth's proud livery so gazed on now,
Will be a totter'd weed of small worth held:""".split()
    ngrams = [([test_sentence[i - j - 1] for j in range(CONTEXT_SIZE)], test_sentence[i])
              for i in range(CONTEXT_SIZE, len(test_sentence))]
    out.append(repr(ngrams[:3]))
    vocab = set(test_sentence)
    word_to_ix = {word: i for i, word in enumerate(sorted(vocab))}
    losses = []
    loss_function = nn.NLLLoss()
    model = NGramLanguageModeler(len(vocab), EMBEDDING_DIM, CONTEXT_SIZE)
    optimizer = optim.SGD(model.parameters(), lr=0.001)
    for _ in range(5):
        total_loss = 0
        for context, target in ngrams:
            context_idxs = torch.tensor([word_to_ix[w] for w in context], dtype=torch.long)
            model.zero_grad()
            log_probs = model(context_idxs)
            loss = loss_function(log_probs, torch.tensor([word_to_ix[target]], dtype=torch.long))
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
        losses.append(total_loss)
    out += losses
    out += model.embeddings.weight[word_to_ix["beauty's"]].tolist()

    raw_text = "We are about to study the idea of a computational process".split()
    word_to_ix = {word: i for i, word in enumerate(sorted(set(raw_text)))}

    def make_context_vector(context, word_to_ix):
        idxs = [word_to_ix[w] for w in context]
        return torch.tensor(idxs, dtype=torch.long)
    data = []
    for i in range(2, len(raw_text) - 2):
        context = [raw_text[i - 2], raw_text[i - 1], raw_text[i + 1], raw_text[i + 2]]
        data.append((context, raw_text[i]))
    out += [repr(data[0]), repr(make_context_vector(data[0][0], word_to_ix))]
    return out
