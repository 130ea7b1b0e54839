"""Viewer identity: one key per person however the name is spelt, so per-viewer limits cannot be multiplied.

`identity("Amy")`, `identity(" a m y ")`, `identity("am\u200by")` and `identity("аmy")` (Cyrillic a) are the
same key. The key is a skeleton in the spirit of Unicode TS #39: lone surrogates replaced, NFKD (compatibility
forms such as full-width letters folded, accents split off), case folded, marks, format characters (zero-width
space and joiners), whitespace, punctuation and symbols dropped, and a small map of look-alike letters and
digits (Cyrillic and Greek homoglyphs, 0/o, 1/l/I, rn/m, vv/w) applied. Distinct real names can share a
key (`al1` and `all`): for a limit, erring towards "the same person" is the safe side.
"""

from __future__ import annotations

import unicodedata

_CONFUSABLES = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "l", "ї": "l", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ɡ": "g",
    "ӏ": "l", "ь": "b", "г": "r", "п": "n", "з": "3",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "ω": "w", "μ": "u", "ϲ": "c",
    # Latin look-alikes and digits
    "ı": "l", "ɩ": "l", "i": "l", "1": "l", "|": "l", "!": "l", "0": "o", "5": "s", "$": "s", "@": "a",
    "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ł": "l", "ħ": "h",
})
_KEEP = ("L", "N")


def clean_text(s: str) -> str:
    """`s` with lone surrogates replaced (as `livesim.parsing.safety.clean_text`; world and parsing are siblings)."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def identity(name: str) -> str:
    """The identity key of a display name (see the module doc); '' when nothing of a name is left."""
    s = unicodedata.normalize("NFKD", clean_text(str(name))[:256]).casefold()
    s = s.translate(_CONFUSABLES)  # before dropping symbols: '|', '!', '$', '@' stand for letters
    s = "".join(ch for ch in s if unicodedata.category(ch)[0] in _KEEP)
    s = unicodedata.normalize("NFKC", s).casefold().translate(_CONFUSABLES)
    return s.replace("rn", "m").replace("vv", "w")
