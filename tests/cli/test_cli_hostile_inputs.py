"""Hostile inputs end in one line, in bounded time, in every command that reads YAML (issue 15 findings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crossfn import cli

_X = Path(__file__).parents[2] / "examples" / "xbucket"
_LAUGHS = "".join(
    [f"a0: &a0 [{', '.join(['lol'] * 9)}]\n"]
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9)]
)
_XR_HEAD = "apiVersion: example.crossplane.io/v1\nkind: XBucket\nmetadata:\n  name: deep\nspec:\n  bucketRegion: us-east-2\n"


def _argv(command: str, path: str) -> list[str]:
    if command == "context-values":
        return ["render", str(_X / "xr.yaml"), str(_X / "composition.yaml"), str(_X / "functions.yaml"),
                "--context-values", f"k={Path(path).read_text()}"]  # fmt: skip
    return {
        "render": ["render", path, str(_X / "composition.yaml"), str(_X / "functions.yaml")],
        "validate": ["validate", str(_X / "composition.yaml"), path],
        "test": ["test", path],
        "convert": ["convert", "pipeline-composition", path],
    }[command]  # fmt: skip


_COMMANDS = ["render", "context-values", "validate", "test", "convert"]


@pytest.mark.parametrize("command", _COMMANDS)
@pytest.mark.parametrize(
    ("text", "want"),
    [
        pytest.param(_LAUGHS, "yaml: document contains excessive aliasing", id="BillionLaughs"),
        pytest.param("a: " + "[" * 10_001 + "]" * 10_001 + "\n", "yaml: exceeded max depth of 10000",
                     id="TooDeep"),
        pytest.param("a: " + "[" * 200_000 + "\n", "yaml: exceeded max depth of 10000", id="Unclosed"),
    ],
)  # fmt: skip
def test_hostile_yaml_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, text: str, want: str | None
) -> None:
    path = tmp_path / "input.yaml"
    path.write_text(text)
    status = cli.main(_argv(command, str(path)))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert status == (2 if command == "test" else 1)
    assert (out, err.count("\n")) == ("", 1), err[-500:]
    if want is not None:
        assert want in err


@pytest.mark.parametrize(
    ("depth", "flags"),
    [
        pytest.param(9_000, [], id="Deep9000"),
        pytest.param(1_500, ["-x", "--output", "json"], id="Deep1500Printed"),
    ],
)
def test_render_accepts_what_kubernetes_accepts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int, flags: list[str]
) -> None:
    """An XR nested thousands of objects deep renders (go-yaml and the API server accept 10,000)."""
    path = tmp_path / "xr.yaml"
    path.write_text(_XR_HEAD + "  deep: " + "{a: " * depth + "1" + "}" * depth + "\n")
    status = cli.main(["render", str(path), str(_X / "composition.yaml"), str(_X / "functions.yaml"), *flags])
    out, err = capsys.readouterr()
    notes = [line for line in err.splitlines() if not line.startswith("crossfn: note: ")]
    assert (status, notes) == (0, []), err[-500:]
    if flags:
        assert out.count('"a": ') == depth, "the whole depth is printed back"


@pytest.mark.parametrize("command", ["render", "test", "validate", "convert"])
def test_control_characters_in_a_path_stay_on_the_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """A file name with a carriage return, an escape sequence or U+2028 cannot repaint or split the error line."""
    name = str(tmp_path / "a\rb\x1b[2J\u2028\x85c.yaml")
    status = cli.main(_argv(command, name) if command != "render" else ["render", name, name, name])
    out, err = capsys.readouterr()
    assert (status, out) == (2 if command == "test" else 1, "")
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert not any(ch in err for ch in "\r\x1b\u2028\x85"), err
