"""Literal prefilters: what a pattern's matches must contain, and the same results as the bare pattern."""

import ast
import re
from pathlib import Path

import pytest

import livesim.grading.accuracy as accuracy
import livesim.grading.act_checks as act_checks
import livesim.grading.acts as acts
import livesim.grading.answers as answers
import livesim.grading.closed as closed
import livesim.grading.cues as cues
import livesim.grading.facts.patterns as patterns
import livesim.grading.normalise as normalise
import livesim.grading.properties as properties
import livesim.grading.reading as reading
import livesim.grading.topics as topics
import livesim.grading.world as world
from livesim.grading.facts.prefilter import Prefiltered, literals


@pytest.mark.parametrize(("pattern", "flags", "needs", "fold"), [
    (r"money[\s-]back", re.I, ("money",), True),  # the longest literal run of a sequence
    (r"\bfree\b|\bcosts?\s{1,2}nothing\b", re.I, ("free", "nothing"), True),  # a branch: one of each alternative
    (r"(?:best|top)\s(?:seller|choice)", 0, ("choice", "seller"), False),  # the rarer of two groups
    (r"refund(?:able)?|refunds", re.I, ("refund",), True),  # "refunds" contains "refund": redundant
    (r"(?:very\s)?good", re.I, ("good",), True),  # an optional group requires nothing
    (r"(?:ab){2,3}c", 0, ("ab",), False),  # a repeat of at least one requires its body
    (r"(?<=price\s)\d+", 0, None, False),  # a lookbehind consumes nothing
    (r"\d+|sold", re.I, None, False),  # one alternative without a literal: nothing required
    (r"(?i:code)\s*[A-Z0-9]{4}", 0, ("code",), True),  # a scoped (?i:) compares case-insensitively
    (r"[0-9]{1,2}月[0-9]{1,2}日", 0, ("月",), False),  # case-sensitive: non-ASCII literals count (the first)
    (r"K[0-9]|[0-9]日", re.I, None, False),  # case-insensitive: non-ASCII literals do not
    (r"^\W{0,3}(?:hi|hey)\b", re.I, None, False),  # anchored: `search` tries one position, cheaper than the check
    (r"\A(?:so|well)\s+no", 0, None, False),
    (r"(?:^hello|^hey)\b", 0, None, False),  # every alternative anchored
    (r"(?:^hello|hey)\b", 0, ("hello", "hey"), False),  # one alternative is not
    (r"^hey", re.M, ("hey",), False),  # with re.M, `^` matches after every newline: not anchored
])
def test_literals_reads_what_every_match_contains(pattern, flags, needs, fold):
    got, got_fold = literals(re.compile(pattern, flags))
    assert got == needs
    if needs is not None:
        assert got_fold == fold


def test_non_ascii_text_is_always_scanned_under_ignorecase():
    pf = Prefiltered(re.compile(r"\bsize\b", re.I))
    assert pf.search("the \u017fize is M") is not None  # the long s matches "s" under re.I
    assert pf.search("the \u017fize is M").span() == re.compile(r"\bsize\b", re.I).search("the \u017fize is M").span()
    assert pf.search("no fit here") is None and not pf.possible("no fit here")
    assert pf.possible("SIZE") and pf.search("SIZE") is not None


def _grader_patterns() -> list[tuple[str, Prefiltered]]:
    found: list[tuple[str, Prefiltered]] = []
    seen: set[int] = set()  # a pattern one module imports from another is tested once
    for mod in (accuracy, act_checks, acts, answers, closed, cues, normalise, patterns, properties, reading, topics,
                world):
        for name, obj in vars(mod).items():
            items = obj if isinstance(obj, tuple) else tuple(obj.values()) if isinstance(obj, dict) else (obj,)
            for i, item in enumerate(items):
                rx = item[1] if isinstance(item, tuple) and len(item) == 2 else item
                if isinstance(rx, Prefiltered) and id(rx) not in seen:
                    seen.add(id(rx))
                    found.append((f"{mod.__name__.rsplit('.', 1)[-1]}.{name}[{i}]", rx))
    return found


def _corpus() -> list[str]:
    """Every string literal of the tests (handwritten replies, claims and their look-alikes), of the world's comment
    templates and of the oracle's replies, each also upper-cased, title-cased and with non-ASCII look-alikes of
    ASCII letters."""
    texts: set[str] = set()
    root = Path(__file__).resolve().parents[3]
    sources = [*root.glob("tests/**/test_*.py"), *root.glob("livesim/world/*.py"), root / "agents" / "oracle.py"]
    for path in sorted(sources):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 3 <= len(node.value) <= 4000:
                texts.add(node.value)
    out: set[str] = set()
    for t in texts:
        out |= {t, t.upper(), t.title(), t.replace("s", "\u017f").replace("k", "\u212a")}
    return sorted(out)


GRADER_PATTERNS = _grader_patterns()
CORPUS = _corpus()


def test_the_grader_uses_prefilters_and_the_corpus_exercises_them():
    assert len(GRADER_PATTERNS) >= 40 and len(CORPUS) >= 2000
    matched = sum(1 for _, pf in GRADER_PATTERNS if any(pf.rx.search(t) for t in CORPUS))
    assert matched >= 0.8 * len(GRADER_PATTERNS)  # most patterns match somewhere, so dropped matches would show


@pytest.mark.parametrize(("name", "pf"), GRADER_PATTERNS, ids=[n for n, _ in GRADER_PATTERNS])
def test_prefiltered_patterns_give_the_patterns_results(name, pf):
    for text in CORPUS:
        want = [(m.span(), m.groups()) for m in pf.rx.finditer(text)]
        assert [(m.span(), m.groups()) for m in pf.finditer(text)] == want, (name, text)
        assert (pf.search(text) is None) == (not want), (name, text)
        assert pf.findall(text) == pf.rx.findall(text)
        assert pf.sub("<>", text) == pf.rx.sub("<>", text)
        assert pf.found(text) == bool(want), (name, text)  # the lower-case twin, where there is one
        if want:
            assert pf.possible(text), (name, text)


# ------------------------------------------------------------------ strings drawn from the patterns themselves
_POOL = " ,.a0#-Z:\n"


def _member(ch: str, items: list, fold: bool) -> bool:
    from re import _constants as c

    cats = {c.CATEGORY_DIGIT: str.isdigit, c.CATEGORY_NOT_DIGIT: lambda x: not x.isdigit(),
            c.CATEGORY_SPACE: str.isspace, c.CATEGORY_NOT_SPACE: lambda x: not x.isspace(),
            c.CATEGORY_WORD: lambda x: x.isalnum() or x == "_",
            c.CATEGORY_NOT_WORD: lambda x: not (x.isalnum() or x == "_")}
    for op, av in items:
        if op is c.LITERAL and (chr(av) == ch or fold and chr(av).lower() == ch.lower()):
            return True
        if op is c.RANGE and (av[0] <= ord(ch) <= av[1] or fold and av[0] <= ord(ch.lower()) <= av[1]):
            return True
        if op is c.CATEGORY and cats.get(av, lambda x: False)(ch):
            return True
    return False


def _pick(items: list, rng, fold: bool) -> str:
    from re import _constants as c

    if items and items[0][0] is c.NEGATE:
        return next(ch for ch in _POOL if not _member(ch, items[1:], fold))
    op, av = items[rng.randrange(len(items))]
    if op is c.LITERAL:
        return chr(av)
    if op is c.RANGE:
        return chr(rng.randint(av[0], av[1]))
    return next((ch for ch in " 5a.," if _member(ch, [(op, av)], fold)), "a")


def _draw(seq, rng, groups: dict, fold: bool) -> str:
    """A string the node sequence can match (lookarounds and boundaries are not honoured: callers keep only the
    strings that the pattern does match)."""
    from re import _constants as c

    out = []
    for op, av in seq:
        if op is c.LITERAL:
            out.append(chr(av))
        elif op is c.NOT_LITERAL:
            out.append("x" if av != ord("x") else "y")
        elif op is c.ANY:
            out.append("a")
        elif op is c.IN:
            out.append(_pick(av, rng, fold))
        elif op is c.BRANCH:
            out.append(_draw(av[1][rng.randrange(len(av[1]))], rng, groups, fold))
        elif op is c.SUBPATTERN:
            s = _draw(av[-1], rng, groups, fold)
            if av[0] is not None:
                groups[av[0]] = s
            out.append(s)
        elif op is c.ATOMIC_GROUP:
            out.append(_draw(av, rng, groups, fold))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            hi = av[0] + 2 if av[1] is c.MAXREPEAT else min(av[1], av[0] + 2)
            out += [_draw(av[2], rng, groups, fold) for _ in range(rng.randint(av[0], hi))]
        elif op is c.GROUPREF:
            out.append(groups.get(av, ""))
    return "".join(out)


def _drawn(pf: Prefiltered, n: int = 300) -> list[str]:
    import random
    from re import _parser as p

    rng = random.Random(pf.pattern)
    tree = list(p.parse(pf.pattern, pf.flags & ~re.UNICODE))
    fold = bool(pf.flags & re.I)
    out = []
    for _ in range(n):
        s = _draw(tree, rng, {}, fold)
        for text in (s, f"Hi! {s} ok.", f"so {s}, yes", s.upper(), s.title()):
            if pf.rx.search(text):
                out.append(text)
    return out


@pytest.mark.parametrize(("name", "pf"), GRADER_PATTERNS, ids=[n for n, _ in GRADER_PATTERNS])
def test_prefiltered_patterns_on_strings_drawn_from_them(name, pf):
    drawn = _drawn(pf)
    assert drawn, f"{name}: no drawn string matches (the sampler cannot reach this pattern)"
    for text in drawn:
        assert pf.possible(text), (name, text)
        assert [m.span() for m in pf.finditer(text)] == [m.span() for m in pf.rx.finditer(text)], (name, text)
        assert pf.found(text), (name, text)


def test_prefilters_agree_with_the_patterns_across_threads():
    from concurrent.futures import ThreadPoolExecutor

    texts = CORPUS[:: max(1, len(CORPUS) // 600)]

    def run(offset: int) -> bool:
        for i in range(len(texts)):
            text = texts[(i + offset) % len(texts)]
            for _, pf in GRADER_PATTERNS[:20]:
                if (pf.search(text) is None) != (pf.rx.search(text) is None):
                    return False
        return True

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, range(0, 400, 100)))


def test_a_rejected_size_always_names_a_size_token():
    """`Reading.sizes` skips the rejected-size rewrite on a sentence without a size token: every match has one."""
    rejected = Prefiltered(reading._REJECTED_SIZE_RE)
    texts = [t for t in (*_drawn(rejected, 600), *CORPUS) if rejected.rx.search(t)]
    assert len(texts) > 200
    for text in texts:
        assert reading._SIZE_ANY_RE.search(text) is not None, text
        assert rejected.rx.sub(" ", text) != text


@pytest.mark.parametrize("gate", [normalise._IDIOM_WORDS, normalise._DURATION_WORDS])
def test_word_gates_read_the_lower_case_alike(gate):
    """`normalise` gates its idiom and duration rewrites on word lists read from the lower case of an ASCII text:
    the same answer as the case-insensitive list on the text itself, on every corpus string and its casings."""
    hits = 0
    for text in CORPUS:
        want = gate.rx.search(text) is not None
        assert gate.found(text) == want, text
        hits += want
    assert hits > 100


@pytest.mark.parametrize(("pattern", "flags", "twin"), [
    (r"\bsold\s+out\b", re.I, True),
    (r"(?i)\bsold\s+out\b", 0, True),  # a leading (?i) folds the whole pattern
    (r"\bsold\s+out\b", 0, False),  # case-sensitive already
    (r"\bSold\b", re.I, False),  # an upper-case letter: the lower case of the text would not hold it
    (r"(?<![A-Za-z])xl\b", re.I, False),
    (r"\W\S\bno\B", re.I, True),  # upper-case escapes keep their meaning
    (r"size(?-i:XL)", re.I, False),  # a scoped flag
])
def test_a_lowercase_twin_only_where_it_finds_the_same(pattern, flags, twin):
    from livesim.grading.facts.prefilter import lowercase_twin

    rx = re.compile(pattern, flags)
    got = lowercase_twin(rx)
    assert (got is not None) == twin
    if got is not None:
        for text in ("SOLD OUT", "Sold  Out!", "is it sold out?", "NO", "a noise", "sold-out"):
            assert (got.search(text.lower()) is not None) == (rx.search(text) is not None), text
