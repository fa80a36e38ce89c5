"""tf.strings.unicode_script against TF 2.21 over whole Unicode blocks of the scripts vfw covers."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

real_tf = pytest.importorskip("tensorflow")
import vfw.tensorflow as vtf  # noqa: E402

# Latin/Greek/Cyrillic/Armenian/Hebrew/Arabic/Syriac/Thaana, Indic, Thai/Lao/Tibetan, Latin extended, Greek
# extended, punctuation and symbols, CJK symbols and kana, Hangul, CJK ideographs, forms, halfwidth/fullwidth
_BLOCKS = [(0, 0x7C0), (0x900, 0xE00), (0xE00, 0x1000), (0x1100, 0x1200), (0x1D00, 0x2000), (0x2000, 0x2800),
           (0x2E80, 0x3190), (0x3200, 0x3400), (0x4E00, 0x5000), (0xAC00, 0xAE00), (0xFB00, 0xFFF0),
           (0x1F300, 0x1F600), (0x20000, 0x20100)]


@pytest.mark.parametrize("low, high", _BLOCKS)
def test_unicode_script_blocks(low, high):
    codes = np.arange(low, high, dtype=np.int32)
    want = real_tf.strings.unicode_script(codes).numpy()
    got = vtf.strings.unicode_script(codes).numpy()
    assert got.dtype == want.dtype
    # TF's ICU predates Python's Unicode 14 database: code points it has unassigned (103) may be assigned here
    known = want != 103
    bad = np.nonzero(known & (got != want))[0]
    assert not bad.size, [(hex(codes[i]), int(want[i]), int(got[i])) for i in bad[:10]]


def test_unicode_script_examples_and_invalid():
    odd = [-1, 0x110000, 0xE000, 0x378, 0xD800, 0x1F600, 0x10400, 0x10330]
    codes = np.array([[ord(c) for c in "aZé Жα中ع"], [ord(c) for c in "בひカ한1!\u0301ก"], odd], np.int32)
    check(lambda tf, c: tf.strings.unicode_script(c), codes)
    check(lambda tf, c: tf.strings.unicode_script(c), codes.astype(np.int64))


def test_unicode_script_unsupported_script_raises():
    with pytest.raises(NotImplementedError, match="U\\+A6A0"):
        vtf.strings.unicode_script([0xA6A0])  # BAMUM LETTER A: ICU script 130, not in vfw's table
