"""``tf.strings.unicode_script``: the ICU script code (``UScriptCode``) of each code point.

The script is read from the character's Unicode name (Python's ``unicodedata``): names start with their script
("CYRILLIC SMALL LETTER ZHE", "HANGUL SYLLABLE HAN", "CJK UNIFIED IDEOGRAPH-4E2D"); combining marks without a
script are Inherited, symbols, digits, punctuation and spaces without one are Common, unassigned, private-use and
surrogate code points Unknown (103), invalid ones (< 0 or > 0x10FFFF) -1.  The scripts with ICU codes 0-39 are
covered (Latin, Greek, Cyrillic, Arabic, Hebrew, Han, Hiragana, Katakana, Hangul, Thai, the Indic scripts...);
a letter or mark of another script raises NotImplementedError rather than getting a wrong code (their digits
and punctuation are reported Common).
"""

import unicodedata

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, mismatch

COMMON, INHERITED, UNKNOWN, INVALID = 0, 1, 103, -1
_SCRIPTS = {
    "ARABIC": 2, "ARMENIAN": 3, "BENGALI": 4, "BOPOMOFO": 5, "CHEROKEE": 6, "COPTIC": 7, "CYRILLIC": 8,
    "DESERET": 9, "DEVANAGARI": 10, "ETHIOPIC": 11, "GEORGIAN": 12, "GOTHIC": 13, "GREEK": 14, "GUJARATI": 15,
    "GURMUKHI": 16, "HANGUL": 18, "HEBREW": 19, "HIRAGANA": 20, "KANNADA": 21, "KATAKANA": 22, "KHMER": 23,
    "LAO": 24, "LATIN": 25, "MALAYALAM": 26, "MONGOLIAN": 27, "MYANMAR": 28, "OGHAM": 29, "OLD ITALIC": 30,
    "ORIYA": 31, "RUNIC": 32, "SINHALA": 33, "SYRIAC": 34, "TAMIL": 35, "TELUGU": 36, "THAANA": 37, "THAI": 38,
    "TIBETAN": 39, "CJK UNIFIED IDEOGRAPH": 17, "CJK COMPATIBILITY IDEOGRAPH": 17, "CJK RADICAL": 17,
    "KANGXI RADICAL": 17, "HANGZHOU NUMERAL": 17, "IDEOGRAPHIC ITERATION MARK": 17, "IDEOGRAPHIC NUMBER ZERO": 17,
    "VERTICAL IDEOGRAPHIC ITERATION MARK": 17, "SUPERSCRIPT LATIN": 25, "ROMAN NUMERAL": 25,
    "PARENTHESIZED HANGUL": 18, "CIRCLED HANGUL": 18, "CIRCLED KATAKANA": 22, "EXTENDED ARABIC": 2,
    "COMBINING CYRILLIC": 8, "SMALL ROMAN NUMERAL": 25, "MODIFIER LETTER CYRILLIC": 8,
    "MODIFIER LETTER GEORGIAN": 12, "BRAILLE PATTERN": 46, "PARENTHESIZED KOREAN": 18, "CIRCLED KOREAN": 18,
}
# First words of names of Common letters ("SCRIPT SMALL G", "DOUBLE-STRUCK CAPITAL C"...).
_COMMON_LETTER_WORDS = {"SCRIPT", "DOUBLE", "BLACK", "MATHEMATICAL", "MODIFIER", "CIRCLED", "PARENTHESIZED",
                        "SQUARED", "NEGATIVE", "TURNED", "REVERSED", "IDEOGRAPHIC", "VERTICAL", "MICRO", "PLANCK",
                        "EULER", "INFORMATION", "ALEF", "BET", "GIMEL", "DALET", "FEMININE", "MASCULINE"}
_SCRIPT_NAME_SECOND_WORDS = {"LETTER", "CAPITAL", "SMALL", "SYLLABLE", "VOWEL", "CHARACTER", "SYLLABICS", "SIGN",
                             "DIGIT", "LIGATURE"}
_GREEK_MODIFIERS = {"GREEK", "BETA", "DELTA", "THETA", "CHI"}
# Prefixes naming no script although a script's name starts them.
_COMMON_PREFIXES = ("KATAKANA-HIRAGANA", "KATAKANA MIDDLE DOT", "HALFWIDTH KATAKANA MIDDLE DOT",
                    "HALFWIDTH KATAKANA-HIRAGANA", "HALFWIDTH KATAKANA VOICED", "HALFWIDTH KATAKANA SEMI-VOICED")
# Characters with a script's name that Unicode's Scripts.txt lists elsewhere.
_EXCEPTIONS = {0x037E: COMMON, 0x0385: COMMON, 0x0387: COMMON, 0x0589: 3, 0x060C: COMMON, 0x061B: COMMON,
               0x061F: COMMON, 0x0640: COMMON, 0x06DD: COMMON, 0x0964: COMMON, 0x0965: COMMON, 0x0E3F: COMMON,
               0x10FB: COMMON, 0x0951: INHERITED, 0x0952: INHERITED, 0x2126: 14, 0x212A: 25, 0x212B: 25,
               0x2132: 25, 0x214E: 25, 0x00AA: 25, 0x00BA: 25, 0x3005: 17, 0x3007: 17, 0x058D: 3, 0x058E: 3,
               0x060B: 2, 0x0605: COMMON, 0x0670: INHERITED, 0x0953: INHERITED, 0x0954: INHERITED,
               0x0485: INHERITED, 0x0486: INHERITED, 0xA673: 8, 0xA67E: 8, 0x0374: COMMON, 0x02EA: 5, 0x02EB: 5,
               0x271D: COMMON, 0x16EB: COMMON, 0x16EC: COMMON, 0x16ED: COMMON, 0xFDFC: 2}
_SQUARED_KATAKANA_WORDS = range(0x3300, 0x3358)  # "SQUARE APAATO"...: katakana words in a square
_INHERITED_MARKS = range(0x064B, 0x0656)  # the Arabic harakat are shared by the scripts written in Arabic letters


def _script_of(code):
    if code < 0 or code > 0x10FFFF:
        return INVALID
    if code in _EXCEPTIONS:
        return _EXCEPTIONS[code]
    if code in _INHERITED_MARKS:
        return INHERITED
    if code in _SQUARED_KATAKANA_WORDS:
        return 22
    char = chr(code)
    category = unicodedata.category(char)
    if category in ("Cn", "Co", "Cs"):
        return UNKNOWN
    name = unicodedata.name(char, "")
    for prefix in ("FULLWIDTH ", "HALFWIDTH "):
        if name.startswith(prefix) and not name.startswith(_COMMON_PREFIXES):
            name = name[len(prefix):]
    if name.startswith(_COMMON_PREFIXES):
        return COMMON
    words = name.replace("-", " ").split()
    for length in (4, 3, 2, 1):
        found = _SCRIPTS.get(" ".join(words[:length]))
        if found is not None:
            return found
    if name.startswith(("COMBINING", "VARIATION SELECTOR", "ZERO WIDTH JOINER", "ZERO WIDTH NON-JOINER",
                        "IDEOGRAPHIC")) and category[0] == "M" or name in ("ZERO WIDTH JOINER",
                                                                             "ZERO WIDTH NON-JOINER"):
        return INHERITED
    if name.startswith("MODIFIER LETTER") and len(words) > 3 and words[2] in ("SMALL", "CAPITAL"):
        return 14 if _GREEK_MODIFIERS & set(words) else 8 if "CYRILLIC" in words else 25
    if category[0] not in "LM":
        return COMMON  # (the digits and punctuation of scripts outside the table too)
    if category[0] == "L" and (len(words) < 2 or words[0] in _COMMON_LETTER_WORDS or
                               words[1] not in _SCRIPT_NAME_SECOND_WORDS):
        return COMMON
    raise NotImplementedError(f"tf.strings.unicode_script: the script of U+{code:04X} ({name or 'unnamed'}) is "
                              f"not in vfw's table (ICU scripts 0-39 are)")


def unicode_script(input, name=None):  # noqa: A002  (TF's argument name)
    """The ICU script code (int32) of each int32 code point of ``input`` (any shape): Common 0, Inherited 1,
    Latin 25, Cyrillic 8, Greek 14, Han 17, Arabic 2, Hebrew 19, Hiragana 20, Katakana 22, Hangul 18...; 103
    for unassigned code points and -1 for invalid ones."""
    codes = convert_to_tensor(input, dtype_hint=_dtypes.int32)
    if codes.dtype != _dtypes.int32:
        raise mismatch("UnicodeScript", np.int32, codes.array.dtype, position=0)

    def run(array):
        unique, inverse = np.unique(array, return_inverse=True)
        scripts = np.array([_script_of(int(c)) for c in unique], np.int32)
        return scripts[inverse].reshape(array.shape)

    return host(run, codes)


NAMESPACES = {"strings": ["unicode_script"]}
TENSOR_METHODS = {}
