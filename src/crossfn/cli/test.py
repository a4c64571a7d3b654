"""``crossfn test``: run CompositionTest and OperationTest files and report PASS/FAIL per test (see ``docs/testing.md``).

This module only parses flags; :mod:`crossfn.comptest` does the work. Exit
status: 0 when every test passed, 1 when any failed, 2 for bad input (a
flag, a test file, or a render input it names), which prints one
``crossfn: error:`` line and no report. The report (and the ``--junit`` file)
is written only once every test ran; meanwhile a progress line per test goes
to stderr as the test ends (``[2/5] PASS suite/name``), unless ``-q``.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from typing import Any

from crossfn import errors
from crossfn.cli import _args, _output, _render_flags

__all__ = ["register"]

_BAD_INPUT = 2


def register(subparsers: Any) -> None:
    """Add the ``test`` command."""
    p = subparsers.add_parser(
        "test",
        help="Run CompositionTest and OperationTest files: render each test and check its assertions.",
        description=(
            "Run CompositionTest and OperationTest (test.crossplane.io/v1alpha1) files: render each test's XR "
            "with its Composition and Functions, or its Operation with its Functions, and check that the "
            "rendered objects match the expected ones. A directory means every test in its *.yaml/*.yml "
            "files, recursively."
        ),
    )
    p.add_argument(
        "paths", metavar="PATH", nargs="+", type=_args.path, help="A test file or a directory of them."
    )
    p.add_argument("--junit", type=_args.path, metavar="FILE", help="Also write a JUnit XML report to FILE.")
    p.add_argument(
        "-o",
        "--output",
        choices=("text", "json"),
        default="text",
        help="Report format on stdout (default text).",
    )
    p.add_argument(
        "--run", metavar="REGEX", help="Run only the tests whose <suite>/<name> matches REGEX (re.search)."
    )
    p.add_argument("--no-exec", action="store_true", help=_render_flags.NO_EXEC_HELP)
    p.add_argument(
        "-q", "--quiet", action="store_true", help="No progress lines on stderr: only the report at the end."
    )
    p.set_defaults(handler=_run)  # fmt: skip


def _run(args: argparse.Namespace) -> int:
    from crossfn import cli, comptest  # noqa: PLC0415 -- heavy imports only when the command runs

    try:
        pattern = re.compile(args.run) if args.run is not None else None
    except re.error as exc:
        return _bad_input(f"--run: cannot parse regular expression: {exc}")

    said: set[str] = set()

    def note(line: str) -> None:
        # Each test renders on its own: say each thing (a built-in standing in for a package) once.
        if line not in said:
            said.add(line)
            print(f"crossfn: note: {line}", file=sys.stderr)

    try:
        cases = comptest.load(args.paths)
        if pattern is not None:
            cases = [c for c in cases if pattern.search(c.full_name)]
        # stdout holds only the report: what an in-process function prints goes to stderr; each
        # failure's report names the exception, so the function's logged traceback is not repeated.
        done = 0

        def progress(outcome: comptest.Outcome) -> None:
            nonlocal done
            done += 1
            if not args.quiet:
                verdict = "PASS" if outcome.passed else "FAIL"
                name = cli.printable(outcome.case.full_name).replace("\n", "\\n")
                print(f"[{done}/{len(cases)}] {verdict} {name}", file=sys.stderr, flush=True)

        with contextlib.redirect_stdout(sys.stderr), _output.function_tracebacks(shown=False):
            outcomes = comptest.run(cases, note=note, allow_exec=not args.no_exec, progress=progress)
    except errors.InputError as exc:
        return _bad_input(str(exc))
    if args.junit is not None:
        try:
            args.junit.write_text(comptest.junit(outcomes), encoding="utf-8")
        except OSError as exc:
            return _bad_input(f"--junit: cannot write {args.junit}: {(exc.strerror or str(exc)).lower()}")
    _output.write(comptest.to_json(outcomes) if args.output == "json" else comptest.text(outcomes))
    return 0 if all(o.passed for o in outcomes) else 1


def _bad_input(message: str) -> int:
    from crossfn import cli  # noqa: PLC0415 -- the package imports this module

    print(f"crossfn: error: {cli.printable(message)}", file=sys.stderr)
    return _BAD_INPUT
