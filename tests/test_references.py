"""Code points at upstream Go code through docs/upstream.md, not at a specification outside the repo."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CODE_DIRS = ("src", "tests", "benchmarks", "scripts", "examples")
ID = r"(?:core|controllers|ops|pt)-\d+(?:\.\d+)*"
# "upstream core-2.2, core-2.10–core-2.16": one marker, then ids joined by separators.
POINTER = re.compile(rf"\bupstream ({ID}(?:(?:, | and | or |–|-|; ){ID})*)")
# Links use GitHub's anchors, which drop the dots: docs/upstream.md#core-21 is "### core-2.1".
MD_LINK = re.compile(r"\(upstream\.md#((?:core|controllers|pt)-\d+)\)")


def _python_files() -> list[Path]:
    return sorted(p for d in CODE_DIRS if (ROOT / d).is_dir() for p in (ROOT / d).rglob("*.py"))


def _anchors() -> set[str]:
    text = (ROOT / "docs" / "upstream.md").read_text(encoding="utf-8")
    return set(re.findall(rf"^#{{2,4}} ({ID})$", text, re.MULTILINE))


def _pointers(text: str) -> list[str]:
    ids: list[str] = []
    for m in POINTER.finditer(text):
        ids += re.findall(ID, m.group(1))
    return ids


def test_no_section_signs_in_code() -> None:
    offenders = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in _python_files()
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "\u00a7" in line
    ]
    assert not offenders, "cite upstream code through docs/upstream.md ids, not spec sections:\n" + "\n".join(
        offenders
    )


def test_every_pointer_resolves() -> None:
    anchors = _anchors()
    assert anchors, "docs/upstream.md has no entries"
    missing: list[str] = []
    for p in [*_python_files(), *sorted((ROOT / "docs").glob("*.md"))]:
        text = p.read_text(encoding="utf-8")
        for ident in _pointers(text):
            if ident not in anchors:
                missing.append(f"{p.relative_to(ROOT)}: {ident}")
        for slug in MD_LINK.findall(text):
            if slug not in {a.replace(".", "") for a in anchors}:
                missing.append(f"{p.relative_to(ROOT)}: #{slug}")
    assert not missing, "no entry in docs/upstream.md for:\n" + "\n".join(missing)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        pytest.param("(upstream core-2.6)", ["core-2.6"], id="One"),
        pytest.param("upstream core-2.10 steps 6–7", ["core-2.10"], id="StepsKept"),
        pytest.param(
            "(upstream core-2.2, core-2.10–core-2.16).", ["core-2.2", "core-2.10", "core-2.16"], id="Group"
        ),
        pytest.param("the revision pt-1 of a package", [], id="NoMarkerNoPointer"),
    ],
)
def test_pointer_syntax(text: str, want: list[str]) -> None:
    assert _pointers(text) == want
