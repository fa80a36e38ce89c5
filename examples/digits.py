"""Synthetic 8x8 "digits" for the examples: drawn procedurally, nothing to download.

Each digit is a 3x5 glyph of a pocket-calculator font, widened to 6x5, placed at a random offset
in an 8x8 image, with random stroke brightness, missing pixels and noise.
"""

import numpy as np

_GLYPHS = [
    "111 101 101 101 111", "010 110 010 010 111", "111 001 111 100 111", "111 001 111 001 111",
    "101 101 111 001 001", "111 100 111 001 111", "111 100 111 101 111", "111 001 010 010 010",
    "111 101 111 101 111", "111 101 111 001 111",
]
GLYPHS = np.array([[[int(c) for c in row] for row in glyph.split()] for glyph in _GLYPHS], np.float32)
"""(10, 5, 3): the glyph of each digit, 1 where the stroke is."""


def make_digits(count, seed=0, noise=0.1):
    """``count`` noisy 8x8 digit images and their labels.

    Parameters
    ----------
    count : int
    seed : int
        Seeds numpy's generator: the same seed draws the same images.
    noise : float
        Standard deviation of the Gaussian noise added to every pixel.

    Returns
    -------
    images : np.ndarray, float32, (count, 8, 8), values in [0, 1]
    labels : np.ndarray, int64, (count,)
    """
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, count)
    wide = np.repeat(GLYPHS, 2, axis=2)  # (10, 5, 6)
    images = np.zeros((count, 8, 8), np.float32)
    rows, cols = rng.integers(0, 4, count), rng.integers(0, 3, count)
    for offset_row in range(4):
        for offset_col in range(3):
            chosen = (rows == offset_row) & (cols == offset_col)
            images[chosen, offset_row:offset_row + 5, offset_col:offset_col + 6] = wide[labels[chosen]]
    images *= rng.uniform(0.6, 1.0, (count, 1, 1)) * (rng.random(images.shape) > 0.1)
    images += rng.normal(0.0, noise, images.shape)
    return np.clip(images, 0.0, 1.0).astype(np.float32), labels.astype(np.int64)


def show(image):
    """An 8x8 image as text (one character per pixel, darker = brighter)."""
    shades = " .:#"
    return "\n".join("".join(shades[min(int(v * 4), 3)] for v in row) for row in image)


if __name__ == "__main__":
    images, labels = make_digits(3)
    for image, label in zip(images, labels):
        print(f"label {label}:\n{show(image)}\n")
