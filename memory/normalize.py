"""Text as the model reads it, for the injection scanner: invisible characters out,
compatibility forms folded (NFKC: full-width, ligatures, math letters), look-alike
Cyrillic/Greek letters mapped to Latin, whitespace collapsed. `hidden_char` finds the
characters that have no business in notes or skills (zero-width, bidi, Unicode tags)."""

from __future__ import annotations

import re
import unicodedata

_HIDDEN = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
                     "\U000e0000-\U000e007f]")
_CONFUSABLES = str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j",
    "ѕ": "s", "һ": "h", "ԁ": "d", "ɡ": "g", "ո": "n", "ᴠ": "v", "ԝ": "w", "ӏ": "l", "ɩ": "i",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D", "Ӏ": "l",
    "α": "a", "ε": "e", "ο": "o", "ρ": "p", "ι": "i", "κ": "k", "ν": "v", "τ": "t", "υ": "u",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
})


def hidden_char(text: str) -> str | None:
    found = _HIDDEN.search(text)
    return f"U+{ord(found.group()):04X}" if found else None


def normalize(text: str) -> str:
    text = _HIDDEN.sub("", text)
    text = unicodedata.normalize("NFKC", text).translate(_CONFUSABLES)
    return re.sub(r"[ \t\u00a0]+", " ", text)
