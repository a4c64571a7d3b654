"""``crossfn completion bash|zsh|fish``: each script is accepted by its shell and completes commands,
aliases, flags and flag choices, all read from the argparse tree. A shell that is not installed is
skipped (bash always runs)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crossfn import cli
from crossfn.cli import completion

# (what is typed, what must be among the completions, why)
CASES = [
    ("crossfn ren", ["render"], "a command"),
    ("crossfn ", ["render", "validate", "test", "completion", "version", "beta"], "every command"),
    ("crossfn beta ", ["render", "trace", "validate"], "Crossplane's spellings under beta"),
    (
        "crossfn resource trace -o ",
        ["default", "wide", "json", "dot", "yaml"],
        "trace's outputs, under an alias",
    ),
    ("crossfn function ", ["serve"], "a sub-command"),
    (
        "crossfn render --inc",
        ["--include-full-xr", "--include-function-results", "--include-context"],
        "flags",
    ),
    ("crossfn render --output ", ["yaml", "json"], "a flag's choices"),
    ("crossfn beta validate -o ", ["text", "json", "yaml"], "an alias's flag choices"),
    ("crossfn function serve --ins", ["--insecure"], "a sub-command's flag"),
    ("crossfn completion ", ["bash", "zsh", "fish"], "a positional's choices"),
]


def _script(shell: str, tmp_path: Path) -> Path:
    path = tmp_path / f"crossfn.{shell}"
    path.write_text(completion.script(shell, completion.commands(cli.build_parser())))
    return path


def _shell(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def _bash_like(shell: str, script: Path, line: str) -> list[str]:
    words = line.split(" ")
    quoted = " ".join(f"'{w}'" for w in words)
    if shell == "bash":
        probe = f'source {script}; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; _crossfn; printf "%s\\n" "${{COMPREPLY[@]}}"'
    else:  # zsh runs the bash script through bashcompinit, whose compgen calls the function in sh emulation
        probe = (
            f"source {script}; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; compgen -F _crossfn -- ''"
        )
    out = subprocess.run([_shell(shell), "-f", "-c", probe] if shell == "zsh" else [_shell(shell), "-c", probe],
                         capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
    return out.stdout.split()


def _fish(script: Path, line: str) -> list[str]:
    out = subprocess.run(
        [_shell("fish"), "--no-config", "-c", f"source {script}; complete -C '{line}'"],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return [row.split("\t")[0] for row in out.stdout.splitlines()]


@pytest.mark.parametrize("shell", completion.SHELLS)
def test_the_shell_accepts_the_script(tmp_path: Path, shell: str) -> None:
    script = _script(shell, tmp_path)
    proc = subprocess.run([_shell(shell), "-n", str(script)], capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stderr) == (0, ""), f"{shell} -n rejects the script"


@pytest.mark.parametrize("shell", completion.SHELLS)
@pytest.mark.parametrize(("line", "want", "reason"), CASES, ids=[c[0].strip() for c in CASES])
def test_it_completes(tmp_path: Path, shell: str, line: str, want: list[str], reason: str) -> None:
    script = _script(shell, tmp_path)
    got = _fish(script, line) if shell == "fish" else _bash_like(shell, script, line)
    missing = [w for w in want if w not in got]
    assert not missing, f"{shell}: {reason}: {line!r} does not offer {missing} (got {got})"
    if shell != "zsh":  # zsh filters by the typed prefix itself, after compgen
        prefix = line.rsplit(" ", maxsplit=1)[-1]
        assert all(g.startswith(prefix) for g in got), f"{shell}: only words starting {prefix!r}"


def test_the_command_prints_the_script() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "crossfn", "completion", "bash"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == completion.script("bash", completion.commands(cli.build_parser()))
    assert proc.stdout.rstrip().endswith("complete -o default -F _crossfn crossfn")
