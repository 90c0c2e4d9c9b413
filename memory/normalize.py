"""Text as the model reads it, for the injection scanner: invisible characters out,
compatibility forms folded (NFKC: full-width, ligatures, math letters), look-alike
Cyrillic/Greek letters mapped to Latin, whitespace collapsed. `hidden_char` finds the
characters that have no business in notes or skills (zero-width, bidi, Unicode tags).
`fold`, `despaced` and `decoded_runs` give the other readings the scanner checks:
non-Latin scripts as written, letters spelled apart, base64 payloads."""

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


_JOINER = re.compile(r"(?<=\w)[-_.*·•](?=\w)")  # i-g-n-o-r-e, ign-ore, a_b, a.b
_SPACED = re.compile(r"(?<=\b\w)[ \t](?=\w\b)")  # I G N O R E (one letter per word)
_BASE64 = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/_-]{16,}={0,2}(?![\w+/=-])")


def fold(text: str) -> str:
    """Invisible characters out and NFKC, nothing mapped across scripts: the form the
    patterns for Cyrillic, Chinese and other non-Latin text read."""
    return re.sub(r"[ \t\u00a0]+", " ", unicodedata.normalize("NFKC", _HIDDEN.sub("", text)))


def despaced(text: str) -> str:
    """`text` with letters spelled apart put back together: "i-g-n-o-r-e" and
    "I G N O R E" read "ignore", "ign-ore" reads "ignore"; words stay apart where two or
    more spaces (or any other separator) stood between them."""
    return _SPACED.sub("", _JOINER.sub("", text))


def decoded_runs(text: str, limit: int = 20) -> list[str]:
    """The text hidden in plausible base64 runs of `text` (16+ characters that decode to
    mostly printable UTF-8), at most `limit` of them: an encoded payload is scanned too."""
    import base64
    import binascii

    found: list[str] = []
    for match in _BASE64.finditer(text):
        run = match.group().rstrip("=")
        if run.isalpha() or run.isdigit():  # a long word or number, not an encoding
            continue
        raw = run.replace("-", "+").replace("_", "/")
        try:
            data = base64.b64decode(raw + "=" * (-len(raw) % 4))
            plain = data.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if plain and sum(c.isprintable() or c.isspace() for c in plain) >= 0.95 * len(plain):
            found.append(plain)
            if len(found) >= limit:
                break
    return found
