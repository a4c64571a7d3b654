"""``crossfn render``: a drop-in, Docker-free ``crossplane render`` on the crossfn engine.

Use it from Python as the CLI does::

    from crossfn import render
    req = render.Request(composite_resource=Path("xr.yaml"), composition=Path("composition.yaml"),
                         functions=Path("functions.yaml"))
    docs = render.render(req)            # the documents, in crossplane render's order
    print(render.output.yaml_stream(docs), end="")

By default the output is today's ``crossplane render xr`` (crossplane/cli
main): one reconcile of the XR controller on crossfn's controller contract
(§3.8, §3.9). ``Request(classic=True)`` (``--classic``) gives Crossplane
v2.2.4's classic ``crossplane render`` instead (§3.5, §3.6).

:func:`load` checks the inputs in Crossplane's order (§3.3) and raises
:class:`~crossfn.errors.InputError` with its exact texts; :func:`render` runs
them (:func:`render_async` inside a running event loop). Unlike Crossplane,
render also accepts a legacy ``mode: Resources`` Composition (converted to a
Pipeline) and, given a ``validator``, checks the render against its
schemas. Modules: ``output`` (the Go-YAML compatible emitter and JSON output).
The annotations render understands are in ``docs/render.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crossfn import extras as _extras
from crossfn.render import output
from crossfn.render._inputs import Inputs, Request, load
from crossfn.render._load import load_documents
from crossfn.render._runtimes import DEVELOPMENT_TARGET, INPROCESS_OBJECT, PROCESS_COMMAND, RUNTIME
from crossfn.render._sources import CONNECTION_DETAILS_ANNOTATION
from crossfn.render._validate import Validator

_extras.require("render", "crossfn.render")  # without the extra: one line naming it

__all__ = [
    "CONNECTION_DETAILS_ANNOTATION",
    "DEVELOPMENT_TARGET",
    "INPROCESS_OBJECT",
    "PROCESS_COMMAND",
    "RUNTIME",
    "Inputs",
    "Request",
    "Validator",
    "load",
    "load_documents",
    "output",
    "render",
    "render_async",
]


def render(
    req: Request,
    *,
    report: Callable[[str], None] = lambda _: None,
    note: Callable[[str], None] = lambda _: None,
    validator: Validator | None = None,
) -> list[Any]:
    """Load, check and render ``req``; returns the output documents in crossplane render's order.

    A document is ``None`` only for ``include_context`` when the last step
    returned no context: Crossplane prints that as a ``null`` document.

    ``report`` gets one line per Function naming its runtime (``--verbose``);
    ``note`` gets what the user should know however verbose they asked it to
    be (a ``mode: Resources`` Composition rendered as a Pipeline), before the
    render runs. ``validator`` (``crossfn.validate.validate_render``, what
    ``--validate`` passes) checks the XR, the step inputs and the composed
    resources against the schemas of ``--xrd``, ``-s`` and ``--crds``; a
    problem fails the render with ``cannot validate render: <n> problems``
    and one line per problem.
    """
    from crossfn.render import _render  # noqa: PLC0415 -- imports the engine; keep `crossfn --help` light

    inputs = load(req)
    for line in inputs.notes:
        note(line)
    return _render.render_documents(inputs, req, report=report, validator=validator)


async def render_async(
    req: Request,
    *,
    report: Callable[[str], None] = lambda _: None,
    note: Callable[[str], None] = lambda _: None,
    validator: Validator | None = None,
) -> list[Any]:
    """:func:`render` for callers that already run an event loop (the test harness, notebooks)."""
    from crossfn.render import _render  # noqa: PLC0415 -- imports the engine; keep `crossfn --help` light

    inputs = load(req)
    for line in inputs.notes:
        note(line)
    return await _render.render_documents_async(inputs, req, report=report, validator=validator)
