"""torch.jit: ``trace`` runs a module or function through the engine's graph executor."""
