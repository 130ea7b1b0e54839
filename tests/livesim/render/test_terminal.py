"""The one escaping point (`livesim.render.terminal.visible`) and every view that prints untrusted text through it:
the dashboard's reply line, `view --transcript`, `view --request N` and the `view DIR` listing show OSC 52, OSC 8,
CSI colour and the other control characters as text and Rich markup literally, for any string.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table
from rich.text import Text

from livesim.cli.main import main
from livesim.render.dashboard import DashboardState, example_state, frame_text, host_lines, render
from livesim.render.terminal import visible
from livesim.stream.records import read_record

ESC = "\x1b"
ATTACKS = [
    f"{ESC}]52;c;cm0gLXJmIH4K{ESC}\\",  # OSC 52: write the clipboard
    f"{ESC}]52;c;aGk=\x07",
    f"{ESC}]8;;https://evil.example/{ESC}\\the shop's page{ESC}]8;;{ESC}\\",  # OSC 8: a link that lies
    f"{ESC}[31mred{ESC}[0m", f"{ESC}[2J{ESC}[H", "\x9b31m one-byte CSI", "\x9d8;;x\x9c one-byte OSC",
    "back\x08\x08space\rreturn", "bidi \u202eevil\u202c", "nul\x00 del\x7f", "line\u2028sep",
    "[bold red]markup[/]", "[link=https://evil.example]x[/link]", "[/]", "\\[escaped]", "[INST] tag [/INST]",
]
# text built from what a terminal or Rich would obey, mixed with ordinary text
pieces = st.sampled_from(["\x1b", "\x07", "\x9b", "\x9d", "\x9c", "]52;c;", "]8;;", "[31m", "\\", "[", "]", "/",
                          "[bold]", "[/]", "[link=x]", "\u202e", "\r", "\x00", "\x7f", "\n", "\t", "é", "中", "🙂",
                          "ok "])
untrusted = st.one_of(st.text(), st.lists(pieces, max_size=20).map("".join))
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _printed(renderable: object, width: int = 200) -> str:
    """What a colour terminal would receive."""
    console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system="truecolor")
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def _sgr_free(s: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", s)  # Rich's own styling: the only escapes allowed out


@settings(max_examples=300, deadline=None)
@given(untrusted)
def test_visible_leaves_nothing_a_terminal_obeys(s: str) -> None:
    out = visible(s)
    assert not CONTROL.search(out)
    assert visible(out) == out  # idempotent
    assert set(out) - set(s) <= set("\\xuUr0123456789abcdef")  # only escapes added


@settings(max_examples=300, deadline=None)
@given(untrusted)
@example("\\[")  # Rich reads backslash-bracket outside a tag as a bracket
@example("a\\\\[b] \\[x")
def test_markup_is_shown_literally_by_rich(s: str) -> None:
    table = Table()
    table.add_column("cell")
    table.add_row(visible(s, markup=True))  # a str cell: Rich parses markup
    shown = _sgr_free(_printed(table, width=400))
    assert not CONTROL.search(shown.replace("\n", ""))
    parsed = Text.from_markup(visible(s, markup=True))
    assert parsed.plain == visible(s) and not parsed.spans  # the text to the letter, no style or link from it


@pytest.mark.parametrize("attack", ATTACKS)
def test_the_dashboard_reply_line_shows_escapes_as_text(attack: str) -> None:
    state = DashboardState(title=f"t{attack}", agent=attack)
    state.chat.append(f"#1 00:01 {attack}: {attack}")
    state.host.extend(host_lines(1, [], [], f"reply {attack}", False, 1.0, viewers=[attack], said=attack))
    frame = _sgr_free(_printed(render(state)))
    assert not CONTROL.search(frame.replace("\n", ""))
    assert "\\x1b" in frame or ESC not in attack


@settings(max_examples=100, deadline=None)
@given(untrusted)
def test_any_reply_in_the_dashboard_frame_is_inert(s: str) -> None:
    state = example_state()
    state.host.extend(host_lines(12, [], [], s, False, 0.5, viewers=[s], said=s))
    state.chat.append(s)
    assert not CONTROL.search(_sgr_free(_printed(
        render(state))).replace("\n", ""))
    assert not CONTROL.search(frame_text(state).replace("\n", ""))


def _record_with(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, name: str = "r.jsonl") -> Path:
    """A real record (flash-sale-rush) whose every comment and viewer name is `text`, re-sealed."""
    from livesim.stream.integrity import HashChain

    src = tmp_path / "src.jsonl"
    assert main(["run", "--scenario", "flash-sale-rush", "--record", str(src), "--quiet", "--json"]) == 0
    capsys.readouterr()
    lines = [json.loads(x) for x in src.read_text().splitlines()]
    for line in lines:
        line.pop("h", None)
        for c in (line.get("request") or {}).get("comments") or []:
            c["text"], c["name"] = text, text
    chain, out = HashChain(), []
    for line in lines:
        out.append(chain.seal(json.dumps(line, ensure_ascii=False, separators=(",", ":"))))
    target = tmp_path / name
    target.write_text("\n".join(out) + "\n")
    return target


@pytest.mark.parametrize("attack", ATTACKS[:6] + ATTACKS[11:])
def test_view_transcript_request_and_listing_print_no_escapes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              attack: str) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    rec = _record_with(folder, capsys, attack, name="seed-00001.jsonl")
    (folder / "src.jsonl").unlink()
    read_record(rec)  # still a valid, sealed record
    weird = folder / f"x{attack.replace('/', '_').replace(chr(0), '')}.jsonl"
    weird.write_text(rec.read_text())
    for argv in (["view", str(rec), "--transcript"], ["view", str(rec), "--request", "1"], ["view", str(folder)],
                 ["view", str(weird), "--transcript"]):
        assert main(argv) == 0, argv
        out, err = capsys.readouterr()
        assert not CONTROL.search(out.replace("\n", "").replace("\t", "")), argv
        assert not CONTROL.search(err.replace("\n", "")), argv
    md = tmp_path / "t.md"
    assert main(["view", str(rec), "--transcript", "-o", str(md)]) == 0
    assert not CONTROL.search(md.read_text().replace("\n", "").replace("\t", ""))


def test_the_rich_text_of_a_view_is_not_markup() -> None:
    assert Text(visible("[bold]x[/bold]")).plain == "[bold]x[/bold]"
