"""``crossfn completion bash|zsh|fish``: a shell completion script, generated from the command tree.

The script is written from the same argparse parsers the command line uses
(:func:`crossfn.cli.parsers`), so every command, alias and flag completes, and
a flag's choices (``--output yaml|json``) complete as its values. A value that
is not a choice, and an argument, complete as file names (the shell's default).

* bash: ``source <(crossfn completion bash)``, or save it in
  ``/etc/bash_completion.d/crossfn``.
* zsh: ``source <(crossfn completion zsh)`` (the bash script under zsh's
  ``bashcompinit``).
* fish: ``crossfn completion fish > ~/.config/fish/completions/crossfn.fish``.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
from typing import Any

from crossfn.cli import _output

__all__ = ["Command", "commands", "register", "script"]

SHELLS = ("bash", "zsh", "fish")


@dataclasses.dataclass(frozen=True)
class Flag:
    names: tuple[str, ...]
    takes_value: bool
    choices: tuple[str, ...]
    help: str


@dataclasses.dataclass(frozen=True)
class Command:
    """One node of the command tree: its path, sub-commands (name, help), flags, and the choices of
    its positional arguments (``completion SHELL``)."""

    path: tuple[str, ...]
    subcommands: tuple[tuple[str, str], ...]
    flags: tuple[Flag, ...]
    words: tuple[str, ...] = ()


def register(subparsers: Any) -> None:
    """Add the ``completion`` command."""
    p = subparsers.add_parser(
        "completion",
        help="Print a shell completion script (bash, zsh or fish).",
        description=(
            "Print a completion script for SHELL. bash and zsh: source <(crossfn completion bash) "
            "(or zsh) in your shell's rc file; fish: crossfn completion fish > "
            "~/.config/fish/completions/crossfn.fish."
        ),
    )
    p.add_argument("shell", metavar="SHELL", choices=SHELLS, help="bash, zsh or fish")
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from crossfn import cli  # noqa: PLC0415 -- the package imports this module

    _output.write(script(args.shell, commands(cli.build_parser())))
    return 0


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    """Every command of ``parser``'s tree, the root first."""
    from crossfn import cli  # noqa: PLC0415 -- the package imports this module

    out = []
    for path, p in cli.parsers(parser):
        subs: list[tuple[str, str]] = []
        flags: list[Flag] = []
        words: list[str] = []
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                helps = {a.dest: a.help or "" for a in action._choices_actions}
                subs += [(name, helps.get(name, "")) for name in action.choices]
            elif not action.option_strings and action.choices:
                words += [str(c) for c in action.choices]
            elif action.option_strings and action.help is not argparse.SUPPRESS:
                flags.append(
                    Flag(
                        names=tuple(action.option_strings),
                        takes_value=action.nargs != 0,
                        choices=tuple(str(c) for c in action.choices or ()),
                        help=_one_line(action.help or ""),
                    )
                )
        out.append(Command(path, tuple(subs), tuple(flags), tuple(words)))
    return out


def _one_line(text: str) -> str:
    first = " ".join(text.split()).split(". ")[0]
    return first.replace("%(default)s", "").replace("%%", "%")


def script(shell: str, tree: list[Command]) -> str:
    """The completion script for ``shell``."""
    return _fish(tree) if shell == "fish" else _bash(tree, zsh=shell == "zsh")


def _key(path: tuple[str, ...]) -> str:
    return "".join(f" {p}" for p in path)


def _bash(tree: list[Command], *, zsh: bool) -> str:
    transitions = sorted(_key((*c.path, name)) for c in tree for name, _ in c.subcommands)
    values: list[str] = []
    words: list[str] = []
    for c in tree:
        for f in c.flags:
            if f.takes_value:
                patterns = "|".join(shlex.quote(f"{_key(c.path)} {n}") for n in f.names)
                reply = (
                    f'COMPREPLY=($(compgen -W {shlex.quote(" ".join(f.choices))} -- "$cur"))'
                    if f.choices
                    else "COMPREPLY=()"
                )
                values.append(f"        {patterns}) {reply}; return 0 ;;")
        subs = " ".join([*(name for name, _ in c.subcommands), *c.words])
        opts = " ".join(n for f in c.flags for n in f.names)
        words.append(
            f"        {shlex.quote(_key(c.path))}) subs={shlex.quote(subs)}; opts={shlex.quote(opts)} ;;"
        )
    steps = "|".join(shlex.quote(t) for t in transitions)
    head = (
        "#compdef crossfn\n# crossfn completion for zsh: source <(crossfn completion zsh)\n"
        "autoload -U +X compinit && { (( ${+_comps} )) || compinit; }\n"
        "autoload -U +X bashcompinit && bashcompinit\n"
        if zsh
        else "# crossfn completion for bash: source <(crossfn completion bash)\n"
    )
    return f"""{head}_crossfn() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="" path="" subs="" opts="" word i
    (( COMP_CWORD > 0 )) && prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    for (( i = 1; i < COMP_CWORD; i++ )); do
        word="${{COMP_WORDS[i]}}"
        case "$path $word" in
        {steps}) path="$path $word" ;;
        esac
    done
    case "$path $prev" in
{chr(10).join(values)}
    esac
    case "$path" in
{chr(10).join(words)}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [[ -n "$subs" ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    else
        COMPREPLY=()
    fi
    return 0
}}
complete -o default -F _crossfn crossfn
"""


def _fish(tree: list[Command]) -> str:
    transitions = sorted(_key((*c.path, name)) for c in tree for name, _ in c.subcommands)
    lines = [
        "# crossfn completion for fish: crossfn completion fish > ~/.config/fish/completions/crossfn.fish",
        "function __crossfn_path",
        "    set -l path ''",
        "    for word in (commandline -opc)[2..-1]",
        f'        if contains -- "$path $word" {" ".join(shlex.quote(t) for t in transitions)}',
        '            set path "$path $word"',
        "        end",
        "    end",
        "    echo $path",
        "end",
        "complete -c crossfn -f",
    ]
    for c in tree:
        at = f"-n {shlex.quote(f'test (__crossfn_path | string collect) = {shlex.quote(_key(c.path))}')}"
        for name, help_text in c.subcommands:
            lines.append(
                f"complete -c crossfn {at} -a {shlex.quote(name)} -d {shlex.quote(_one_line(help_text))}"
            )
        for f in c.flags:
            spec = " ".join(
                f"-l {shlex.quote(n[2:])}" if n.startswith("--") else f"-s {shlex.quote(n[1:])}"
                for n in f.names
            )
            value = ""
            if f.takes_value:
                value = f" -x -a {shlex.quote(' '.join(f.choices))}" if f.choices else " -r -F"
            lines.append(f"complete -c crossfn {at} {spec}{value} -d {shlex.quote(f.help)}")
        if c.words:
            lines.append(f"complete -c crossfn {at} -a {shlex.quote(' '.join(c.words))}")
        elif not c.subcommands and c.path:
            lines.append(f"complete -c crossfn {at} -F")
    return "\n".join(lines) + "\n"
