"""Side-by-side benchmarks of vfw against numpy and the real frameworks (not tests)."""
