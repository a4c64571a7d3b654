"""Reports of a test run: the text the CLI prints, JSON for tools, and JUnit XML for CI systems.

Text: one line per case, ``PASS <suite>/<name>`` or ``FAIL <suite>/<name>``,
then for a failure its reasons indented by four spaces (a mismatching field
by eight), and a last line ``N passed, M failed``.

JSON (``-o json``) is one object: ``tests`` (suite, name, id, file, passed,
error, failures with their field, summary and details) and the ``passed`` and
``failed`` counts; it leaves out timings so that it is reproducible.

JUnit XML follows the de-facto schema CI systems read (Jenkins, GitLab,
GitHub test reporters): one ``<testsuite>`` per CompositionTest document, one
``<testcase>`` per test; an assertion failure is a ``<failure>``, a render that
failed (fatal result, timeout, schema problems) an ``<error>``.
"""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from crossfn.comptest import _run

__all__ = ["junit", "reasons", "text", "to_json"]

# What a line of the text report may not hold: controls (a newline or carriage return in a test's name
# would forge report lines, an escape sequence would repaint the terminal), line separators, and lone
# surrogates (no encoding can write them).
_NOT_PRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
# What XML 1.0 cannot hold at all (tab, newline and carriage return it can).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _printable(s: str) -> str:
    """``s`` with every control character, line separator and lone surrogate written as an escape (``\\x0a``)."""
    return _NOT_PRINTABLE.sub(_escape, s)


def _xml(s: str) -> str:
    return _NOT_XML.sub(_escape, s)


def reasons(outcome: _run.Outcome) -> list[str]:
    """Why ``outcome`` failed, as indented lines (empty for a pass)."""
    lines: list[str] = []
    if outcome.error is not None:
        lines.extend(f"    {_printable(line)}" for line in outcome.error.splitlines())
    for failure in outcome.failures:
        lines.append(f"    {_printable(failure.field)}: {_printable(failure.summary)}")
        lines.extend(
            f"        {_printable(line)}" for detail in failure.details for line in detail.splitlines()
        )
    return lines


def _summary(outcomes: Sequence[_run.Outcome]) -> str:
    passed = sum(o.passed for o in outcomes)
    return f"{passed} passed, {len(outcomes) - passed} failed"


def text(outcomes: Sequence[_run.Outcome]) -> str:
    """The CLI's report: a line per case, its reasons when it failed, and the summary line."""
    lines: list[str] = []
    for outcome in outcomes:
        lines.append(f"{'PASS' if outcome.passed else 'FAIL'} {_printable(outcome.case.full_name)}")
        lines.extend(reasons(outcome))
    lines.append(_summary(outcomes))
    return "\n".join(lines) + "\n"


def to_json(outcomes: Sequence[_run.Outcome]) -> str:
    """The run as one JSON document, keys sorted, for tools that post-process results."""
    tests = [
        {
            "suite": o.case.suite,
            "name": o.case.name,
            "id": o.case.id,
            "file": str(o.case.file),
            "passed": o.passed,
            "error": o.error,
            "failures": [
                {"field": f.field, "summary": f.summary, "details": list(f.details)} for f in o.failures
            ],
        }
        for o in outcomes
    ]
    passed = sum(o.passed for o in outcomes)
    doc = {"tests": tests, "passed": passed, "failed": len(outcomes) - passed}
    # JSON escapes controls itself; a lone surrogate it would write raw, which no encoder takes.
    return (
        re.sub("[\ud800-\udfff]", _escape_json, json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False))
        + "\n"
    )


def _escape_json(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _counts(element: ET.Element, outcomes: Sequence[_run.Outcome]) -> None:
    element.set("tests", str(len(outcomes)))
    element.set("failures", str(sum(bool(o.failures) and o.error is None for o in outcomes)))
    element.set("errors", str(sum(o.error is not None for o in outcomes)))
    element.set("skipped", "0")
    element.set("time", _seconds(sum(o.seconds for o in outcomes)))


def _testcase(parent: ET.Element, outcome: _run.Outcome) -> None:
    case = outcome.case
    element = ET.SubElement(
        parent,
        "testcase",
        {
            "name": _printable(case.name),
            "classname": _printable(case.suite),
            "file": _printable(str(case.file)),
            "time": _seconds(outcome.seconds),
        },
    )
    if outcome.passed:
        return
    body = "\n".join(line[4:] for line in reasons(outcome))
    if outcome.error is not None:
        detail = ET.SubElement(
            element, "error", {"message": _printable(outcome.error.splitlines()[0]), "type": "RenderError"}
        )
    else:
        message = f"{len(outcome.failures)} expected object(s) matched no rendered object"
        detail = ET.SubElement(element, "failure", {"message": message, "type": "AssertionError"})
    detail.text = _xml(body)


def junit(outcomes: Sequence[_run.Outcome]) -> str:
    """The run as a JUnit XML document (UTF-8, with an XML declaration)."""
    root = ET.Element("testsuites", {"name": "crossfn test"})
    _counts(root, outcomes)
    for (where, suite), group in itertools.groupby(outcomes, key=lambda o: (o.case.where, o.case.suite)):
        members = list(group)
        element = ET.SubElement(
            root, "testsuite", {"name": _printable(suite), "file": _printable(str(members[0].case.file))}
        )
        _counts(element, members)
        for outcome in members:
            _testcase(element, outcome)
        del where
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
