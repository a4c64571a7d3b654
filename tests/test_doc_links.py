"""Every relative link in README.md and docs/*.md reaches a file, and its #anchor a heading there,
with the anchors GitHub makes from headings (``### core-2.1`` is ``#core-21``)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
_LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, punctuation but ``-`` and ``_`` dropped,
    spaces as ``-`` (github-slugger)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    text = "".join(ch for ch in text.lower() if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def _lines_outside_code(text: str) -> list[str]:
    out, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append(line)
    return out


def anchors(page: Path) -> set[str]:
    """The anchors of ``page``: one per heading (repeats get ``-1``, ``-2``), and HTML anchors."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in _lines_outside_code(page.read_text(encoding="utf-8")):
        found.update(_HTML_ANCHOR.findall(line))
        m = _HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(page: Path) -> list[str]:
    """The relative link targets of ``page`` (no scheme, no mailto), outside code blocks and spans."""
    out: list[str] = []
    for line in _lines_outside_code(page.read_text(encoding="utf-8")):
        prose = re.sub(r"`[^`]*`", "", line)
        out += [t for t in _LINK.findall(prose) if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]
    return out


@pytest.mark.parametrize(
    ("heading", "want"),
    [
        pytest.param("core-2.1", "core-21", id="DotsDropped"),
        pytest.param("Install: core and extras", "install-core-and-extras", id="Punctuation"),
        pytest.param(
            "`crossfn validate EXTENSIONS RESOURCES`", "crossfn-validate-extensions-resources", id="Code"
        ),
        pytest.param("patch-and-transform: transforms", "patch-and-transform-transforms", id="Hyphens"),
        pytest.param(
            "SDK and function server (crossfn.sdk)", "sdk-and-function-server-crossfnsdk", id="Parens"
        ),
    ],
)
def test_slug_is_githubs(heading: str, want: str) -> None:
    assert slug(heading) == want


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    broken: list[str] = []
    for target in links(page):
        path, _, fragment = target.partition("#")
        dest = (page.parent / unquote(path)).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif fragment and dest.suffix == ".md" and unquote(fragment) not in anchors(dest):
            broken.append(f"{target}: no heading with that anchor in {dest.relative_to(ROOT)}")
    assert not broken, f"dead links in {page.relative_to(ROOT)}:\n" + "\n".join(broken)
