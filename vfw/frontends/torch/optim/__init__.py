"""torch.optim: optimizers and learning-rate schedulers."""
