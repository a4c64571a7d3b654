"""A condition or event message as a Go ``text/template`` over the captured groups (a ``map[string]string``).

function-status-transformer parses the message with ``template.New("")`` and
executes it with the regular-expression groups its matchers captured, and only
when there are some: with none, the message is used as written. Messages
name groups as fields of dot (``{{ .Error }}``); that is the part of
``text/template`` this module evaluates, with Go's texts: text and actions,
``{{-``/``-}}`` trimming, comments, ``{{ . }}`` (``map[k:v ...]``), a missing
group as ``<no value>``, and the parse errors ``unclosed action``,
``unexpected "}" in operand`` and ``unclosed comment``. Any other action
(functions, pipelines, ``if``/``range``) is one error line saying crossfn
evaluates only fields of dot.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from crossfn import errors

__all__ = ["render"]

_FIELD = re.compile(r"(?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.")


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _parse_error(text: str, pos: int, what: str) -> errors.GoError:
    return errors.GoError(f"cannot parse template: template: :{_line(text, pos)}: {what}")


def _action(body: str, text: str, pos: int) -> str:
    """The field chain an action names; GoError for what this evaluator does not run."""
    inner = body.strip()
    m = _FIELD.fullmatch(inner)
    if m:
        return inner
    brace = inner.find("}")
    if brace >= 0:
        raise _parse_error(text, pos, 'unexpected "}" in operand')
    raise _parse_error(
        text,
        pos,
        f"crossfn evaluates only fields of dot ({{{{ .Name }}}}) in this message, not {errors.quote(inner)}",
    )


def _value(chain: str, values: Mapping[str, str], text: str, pos: int) -> str:
    if chain == ".":
        return "map[" + " ".join(f"{k}:{v}" for k, v in sorted(values.items())) + "]"
    parts = chain[1:].split(".")
    if len(parts) > 1:
        raise errors.GoError(
            f"cannot execute template: template: :{_line(text, pos)}:{pos - text.rfind(chr(10), 0, pos)}: "
            f'executing "" at <{chain}>: can\'t evaluate field {parts[1]} in type string'
        )
    return values.get(parts[0], "<no value>")


def render(text: str, values: Mapping[str, str]) -> str:
    """The message ``text`` executed with ``values``; GoError with the wrapping upstream adds."""
    out: list[str] = []
    i = 0
    while True:
        start = text.find("{{", i)
        if start < 0:
            out.append(text[i:])
            break
        chunk = text[i:start]
        left_trim = (
            text.startswith("{{- ", start)
            or text.startswith("{{-\t", start)
            or text.startswith("{{-\n", start)
        )
        out.append(chunk.rstrip(" \t\r\n") if left_trim else chunk)
        body_start = start + (3 if left_trim else 2)
        if text.startswith("/*", body_start) or text.startswith(" /*", body_start):
            close = text.find("*/", body_start)
            if close < 0:
                raise _parse_error(text, start, "unclosed comment")
            end = text.find("}}", close)
            if end < 0:
                raise _parse_error(text, start, "unclosed action")
        else:
            end = text.find("}}", body_start)
            if end < 0:
                # Go's lexer reads a lone "}" inside an action as an operand it cannot use.
                what = 'unexpected "}" in operand' if "}" in text[body_start:] else "unclosed action"
                raise _parse_error(text, start, what)
        body = text[body_start:end]
        right_trim = body.endswith(" -") or body.endswith("\t-") or body.endswith("\n-")
        if right_trim:
            body = body[:-1]
        if not body.strip().startswith("/*"):
            out.append(
                _value(_action(body, text, start), values, text, start + 2 + (len(body) - len(body.lstrip())))
            )
        i = end + 2
        if right_trim:
            while i < len(text) and text[i] in " \t\r\n":
                i += 1
    return "".join(out)
