"""Integers said in English words, for the benches that write replies the way people say them (the stress bench's
rewrites, the attack bench's paraphrases). Neither bench reads the grader; this module reads nothing.
"""

from __future__ import annotations

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
         "seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int, british: bool = True) -> str:
    """0 <= n < 10000 in words: "one hundred and twenty-nine" (`british`), or "one hundred twenty-nine"."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + (((" and " if british else " ") + number_words(rest, british))
                                               if rest else "")
    rest = n % 1000
    tail = (((" and " if british and rest < 100 else " ") + number_words(rest, british)) if rest else "")
    return number_words(n // 1000, british) + " thousand" + tail
