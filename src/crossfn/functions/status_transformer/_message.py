"""A condition or event message: Go's ``text/template`` over the captured groups, as upstream runs it.

function-status-transformer parses each message with ``template.New("")``
(no functions added, no options set) and executes it with the groups its
matchers' regular expressions captured, a ``map[string]string``, and only
when there are some: with none, the message is used as written. Parse and
execution errors are wrapped ``cannot parse template`` and ``cannot execute
template``. The engine is :mod:`crossfn.gocompat.template`, of the Go release
each upstream release was built with (``_release.Release.go``).
"""

from __future__ import annotations

from collections.abc import Mapping

from crossfn import errors
from crossfn.gocompat import template, values

__all__ = ["render"]


def render(text: str, groups: Mapping[str, str], go: template.GoRelease) -> str:
    """The message ``text`` executed with ``groups``; GoError with the wrapping upstream adds."""
    tmpl = template.Template("", release=go)
    try:
        tmpl.parse(text)
    except errors.GoError as exc:
        raise errors.GoError(f"cannot parse template: {exc}") from exc
    try:
        return tmpl.execute(values.GoMap(groups, elem="string"))
    except errors.GoError as exc:
        raise errors.GoError(f"cannot execute template: {exc}") from exc
