"""torch.utils.data: datasets, samplers and DataLoader."""
