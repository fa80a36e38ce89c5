"""A neural topic model (ProdLDA / the Pyro-free AVITM recipe) on a synthetic bag-of-words corpus: documents drawn
with torch.distributions.Multinomial from topic mixtures, an encoder to a logistic-normal posterior (Normal
rsample, softmax), a decoder of topic-word logits with BatchNorm1d, the reconstruction term as
Multinomial(...).log_prob of the counts, the KL to a Laplace-approximated Dirichlet prior, topic coherence
by top words (topk), then a logistic regression on the inferred topic proportions fitted with
LBFGS(line_search_fn="strong_wolfe") over the whole batch, with an L2 penalty in the closure."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Multinomial, Normal

VOCAB, TOPICS, DOC_LEN = 30, 3, 40


def make_corpus(n_docs, generator):
    topic_words = torch.full((TOPICS, VOCAB), -3.0)
    for k in range(TOPICS):
        topic_words[k, k * 10: (k + 1) * 10] = torch.randn(10, generator=generator) * 0.5 + 1.0
    topic_words = topic_words.softmax(-1)
    mixtures = (torch.randn(n_docs, TOPICS, generator=generator) * 2.0).softmax(-1)
    labels = mixtures.argmax(-1)
    word_probs = mixtures @ topic_words
    counts = Multinomial(DOC_LEN, probs=word_probs).sample()
    return counts, labels, word_probs


class ProdLDA(nn.Module):
    def __init__(self, hidden=32, alpha=1.0):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(VOCAB, hidden), nn.Softplus(), nn.Linear(hidden, hidden),
                                     nn.Softplus(), nn.Dropout(0.2))
        # no bias in front of a BatchNorm: its gradient is round-off, which Adam would turn into real steps
        self.mu, self.logvar = nn.Linear(hidden, TOPICS, bias=False), nn.Linear(hidden, TOPICS, bias=False)
        self.bn_mu, self.bn_logvar = nn.BatchNorm1d(TOPICS, affine=False), nn.BatchNorm1d(TOPICS, affine=False)
        self.beta = nn.Linear(TOPICS, VOCAB, bias=False)
        self.bn_beta = nn.BatchNorm1d(VOCAB, affine=False)
        # Laplace approximation of a symmetric Dirichlet(alpha) in the softmax basis.
        a = torch.full((1, TOPICS), alpha)
        self.register_buffer("prior_mean", a.log() - a.log().mean(1, keepdim=True))
        self.register_buffer("prior_var",
                             (1.0 / a) * (1 - 2.0 / TOPICS) + (1.0 / a).sum(1, keepdim=True) / TOPICS ** 2)

    def forward(self, bow):
        h = self.encoder(bow)
        mu, logvar = self.bn_mu(self.mu(h)), self.bn_logvar(self.logvar(h))
        q = Normal(mu, (0.5 * logvar).exp())
        theta = F.dropout(q.rsample().softmax(-1), 0.2, self.training)
        word_probs = self.bn_beta(self.beta(theta)).softmax(-1)
        return word_probs, mu, logvar

    def kl(self, mu, logvar):
        var = logvar.exp()
        return 0.5 * ((var / self.prior_var) + (mu - self.prior_mean) ** 2 / self.prior_var
                      + self.prior_var.log() - logvar - 1).sum(-1)


def main():
    torch.manual_seed(29)
    g = torch.Generator().manual_seed(29)
    counts, labels, word_probs = make_corpus(64, g)
    truth = Multinomial(DOC_LEN, probs=word_probs)
    out = [counts.sum().item(), counts.max().item(), truth.log_prob(counts).mean().item(), str(counts.dtype),
           *Multinomial(DOC_LEN, probs=word_probs[:3]).entropy().tolist()]
    model = ProdLDA()
    opt = torch.optim.Adam(model.parameters(), lr=2e-2, betas=(0.99, 0.999))
    for _ in range(10):
        model.train()
        probs, mu, logvar = model(counts)
        nll = -Multinomial(DOC_LEN, probs=probs).log_prob(counts)
        loss = (nll + model.kl(mu, logvar)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        _, theta_mu, _ = model(counts)
        theta = theta_mu.softmax(-1)
        top_words = model.beta.weight.t().topk(5, dim=1).indices
    out += [str(top_words.sort(dim=1).values.tolist()), *theta[:3].flatten().tolist()]
    # Logistic regression on the topic proportions with L-BFGS. Its losses are compared, not its iteration and
    # evaluation counts: near the optimum its stopping tests compare float32 losses that differ in the last bits
    # with the order of a reduction.
    clf = nn.Linear(TOPICS, TOPICS)
    lbfgs = torch.optim.LBFGS(clf.parameters(), lr=1, max_iter=20, history_size=10, line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        objective = F.cross_entropy(clf(theta), labels) + 1e-2 * clf.weight.pow(2).sum()
        objective.backward()
        return objective

    for _ in range(3):
        out.append(lbfgs.step(closure).item())
    out.append((clf(theta).argmax(1) == labels).float().mean().item())
    return out
