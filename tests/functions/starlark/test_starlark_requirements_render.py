"""A Starlark step asks for a resource and uses it, through ``crossfn render``'s requirements loop.

The script returns early until ``required_resources`` is resolved, then reads
the fetched ConfigMap: render must call it again with the resource supplied.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crossfn import cli

HERE = Path(__file__).parent / "testdata" / "requirements"
EXAMPLE = Path(__file__).parents[3] / "examples" / "starlark-robots"

CASES = [
    pytest.param(
        ["-e", str(HERE / "palette.yaml")], "teal", "the required ConfigMap's colour is used", id="Resolved"
    ),
    pytest.param(
        [], "purple", "resolved with nothing matching, the script falls back to purple", id="NothingMatched"
    ),
]


@pytest.mark.parametrize(("flags", "colour", "reason"), CASES)
def test_required_resource_reaches_the_script(
    capsys: pytest.CaptureFixture[str], flags: list[str], colour: str, reason: str
) -> None:
    args = [str(EXAMPLE / "xr.yaml"), str(HERE / "composition.yaml"), str(EXAMPLE / "functions.yaml")]
    assert cli.main(["render", *args, "-r", "--classic", *flags]) == 0, reason
    out = capsys.readouterr().out
    assert f"color: {colour}" in out, reason
    assert f"message: painted {colour}" in out, reason
