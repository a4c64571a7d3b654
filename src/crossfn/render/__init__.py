"""``crossfn render``: a drop-in, Docker-free ``crossplane render`` on the crossfn engine.

Use it from Python as the CLI does::

    from crossfn import render
    req = render.Request(composite_resource=Path("xr.yaml"), composition=Path("composition.yaml"),
                         functions=Path("functions.yaml"))
    docs = render.render(req)            # the documents, in crossplane render's order
    print(render.output.yaml_stream(docs), end="")

By default the output is today's ``crossplane render xr`` (crossplane/cli
main): one reconcile of the XR controller on crossfn's controller contract
(upstream core-3.8, core-3.9), the output contract :data:`CURRENT`. ``render(req,
output=render.CLASSIC)`` (``--classic``) gives Crossplane v2.2.4's classic
``crossplane render`` instead (upstream core-3.5, core-3.6). An output contract is an object
(:class:`Output`); the caller picks it.

:func:`load` checks the inputs in Crossplane's order (upstream core-3.3) and raises
:class:`~crossfn.errors.InputError` with its exact texts; :func:`render` runs
them (:func:`render_async` inside a running event loop).

Callers that hold the inputs as objects (``crossfn test``, a controller) skip
the files: :func:`render_objects` takes an :class:`Objects` (the XR,
Composition, Functions, observed resources... as dicts), or
:func:`from_objects` checks one into :class:`Inputs` with the same rules and
texts as :func:`load`, and :func:`render_inputs` renders checked inputs::

    docs = render.render_objects(render.Objects(xr=xr, composition=comp, functions=fns), output=render.CLASSIC)

``crossfn render op`` renders an Operation as ``crossplane render op`` does (one
reconcile of the Operation controller); a CronOperation or WatchOperation renders
as the Operation it would make::

    req = render.OperationRequest(operation=Path("operation.yaml"), functions=Path("functions.yaml"))
    docs = render.render_operation(req)   # the Operation with its status, then what it applied

:func:`operation_from_objects` and :func:`render_operation_objects` take the
inputs as objects (:class:`OperationObjects`), as ``crossfn test`` does.

Unlike Crossplane, render also accepts a legacy ``mode: Resources`` Composition (converted to a
Pipeline) and, given a ``validator``, checks the render against its
schemas. Modules: ``output`` (the Go-YAML compatible emitter and JSON output).
The annotations render understands are in ``docs/render.md``.
"""

from __future__ import annotations

import asyncio
import functools
import typing as _typing
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from crossfn import _lazy
from crossfn import extras as _extras
from crossfn.render import output
from crossfn.render._contract import NOTHING_MORE as _NOTHING_MORE
from crossfn.render._contract import Include, Output, Rendered
from crossfn.render._inputs import Inputs, Objects, Request, from_objects, load
from crossfn.render._load import load_documents, load_one
from crossfn.render._op_inputs import Inputs as OperationInputs
from crossfn.render._op_inputs import Objects as OperationObjects
from crossfn.render._op_inputs import Request as OperationRequest
from crossfn.render._op_inputs import from_objects as operation_from_objects
from crossfn.render._op_inputs import load as load_operation
from crossfn.render._runtimes import DEVELOPMENT_TARGET, INPROCESS_OBJECT, PROCESS_COMMAND, RUNTIME
from crossfn.render._sources import CONNECTION_DETAILS_ANNOTATION
from crossfn.render._validate import Validator

_P = ParamSpec("_P")
_T = TypeVar("_T")

_extras.require("render", "crossfn.render")  # without the extra: one line naming it

if _typing.TYPE_CHECKING:
    from crossfn.render._engine_mode import CURRENT as CURRENT
    from crossfn.render._op_render import OperationInclude as OperationInclude
    from crossfn.render._render import CLASSIC as CLASSIC

_LAZY = {"CLASSIC": "_render", "CURRENT": "_engine_mode", "OperationInclude": "_op_render"}
"""The output contracts, whose modules (the runtimes, the reconcile) load on first use, as :func:`render` loads them.
The one list of them (:mod:`crossfn._lazy`).
"""

_lazy.install(__name__, _LAZY, globals())

__all__ = [
    "CONNECTION_DETAILS_ANNOTATION",
    "DEVELOPMENT_TARGET",
    "INPROCESS_OBJECT",
    "PROCESS_COMMAND",
    "RUNTIME",
    "Include",
    "Inputs",
    "Objects",
    "OperationInputs",
    "OperationObjects",
    "OperationRequest",
    "Output",
    "Rendered",
    "Request",
    "Validator",
    "from_objects",
    "load",
    "load_documents",
    "load_one",
    "load_operation",
    "operation_from_objects",
    "output",
    "render",
    "render_async",
    "render_inputs",
    "render_inputs_async",
    "render_objects",
    "render_operation",
    "render_operation_async",
    "render_operation_inputs",
    "render_operation_inputs_async",
    "render_operation_objects",
    # and the lazy names: listed once, in _LAZY
]
__all__ += list(_LAZY)


def _include(req: Request) -> Include:
    return Include(
        function_results=req.include_function_results,
        full_xr=req.include_full_xr,
        context=req.include_context,
    )


async def render_async(
    req: Request,
    *,
    output: Output | None = None,
    report: Callable[[str], None] = lambda _: None,
    note: Callable[[str], None] = lambda _: None,
    validator: Validator | None = None,
) -> list[Any]:
    """:func:`render` for callers that already run an event loop (the test harness, notebooks)."""
    return await render_inputs_async(
        load(req), output=output, include=_include(req), timeout=req.timeout, report=report, note=note,
        validator=validator,
    )  # fmt: skip


async def render_inputs_async(
    inputs: Inputs,
    *,
    output: Output | None = None,
    include: Include = _NOTHING_MORE,
    timeout: float = 60.0,
    report: Callable[[str], None] = lambda _: None,
    note: Callable[[str], None] = lambda _: None,
    validator: Validator | None = None,
) -> list[Any]:
    """:func:`render_inputs` for callers that already run an event loop."""
    from crossfn.render import _render  # noqa: PLC0415 -- imports the engine; keep `crossfn --help` light

    for line in inputs.notes:
        note(line)
    return await _render.render_documents(
        inputs, output=output, include=include, timeout=timeout, report=report, validator=validator
    )


def _blocking(render_in_loop: Callable[_P, Coroutine[Any, Any, _T]], doc: str) -> Callable[_P, _T]:
    """``render_in_loop`` for synchronous callers (the CLI): the same arguments, run in an event loop of its own."""

    @functools.wraps(render_in_loop)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        return asyncio.run(render_in_loop(*args, **kwargs))

    run.__name__ = run.__qualname__ = render_in_loop.__name__.removesuffix("_async")
    run.__doc__ = doc
    return run


render = _blocking(
    render_async,
    """Load, check and render ``req``; returns the output documents in crossplane render's order.

    ``output`` is the output contract: :data:`CURRENT` (the default) or
    :data:`CLASSIC` (``--classic``). A document is ``None`` only for ``-c``
    when the last step returned no context: Crossplane prints that as ``null``.

    ``report`` gets one line per Function naming its runtime (``--verbose``);
    ``note`` gets what the user should know however verbose they asked it to
    be (a ``mode: Resources`` Composition rendered as a Pipeline), before the
    render runs. ``validator`` (``crossfn.validate.validate_render``, what
    ``--validate`` passes) checks the XR, the step inputs and the composed
    resources against the schemas of ``--xrd``, ``-s`` and ``--crds``; a
    problem fails the render with ``cannot validate render: <n> problems``
    and one line per problem.
    """,
)

render_inputs = _blocking(
    render_inputs_async,
    """Render inputs already loaded and checked (:func:`load`, :func:`from_objects`) within ``timeout`` seconds.

    ``include`` says what to print besides the XR and composed resources
    (``-r``, ``-x``, ``-c``); the other arguments are :func:`render`'s.
    """,
)


def render_objects(
    objects: Objects,
    *,
    output: Output | None = None,
    include: Include = _NOTHING_MORE,
    timeout: float = 60.0,
    report: Callable[[str], None] = lambda _: None,
    note: Callable[[str], None] = lambda _: None,
    validator: Validator | None = None,
) -> list[Any]:
    """Check and render ``objects``: :func:`render` without files."""
    return render_inputs(
        from_objects(objects), output=output, include=include, timeout=timeout, report=report, note=note,
        validator=validator,
    )  # fmt: skip


async def render_operation_inputs_async(
    inputs: OperationInputs,
    *,
    include: OperationInclude | None = None,
    timeout: float = 60.0,
    report: Callable[[str], None] = lambda _: None,
    note: Callable[[str], None] = lambda _: None,
) -> list[Any]:
    """:func:`render_operation_inputs` for callers that already run an event loop."""
    from crossfn.render import _op_render  # noqa: PLC0415 -- imports the engine; keep `crossfn --help` light

    for line in inputs.notes:
        note(line)
    return await _op_render.render_documents(
        inputs, include=include or _op_render.OperationInclude(), timeout=timeout, report=report
    )


async def render_operation_async(
    req: OperationRequest,
    *,
    report: Callable[[str], None] = lambda _: None,
    note: Callable[[str], None] = lambda _: None,
) -> list[Any]:
    """:func:`render_operation` for callers that already run an event loop."""
    from crossfn.render import _op_render  # noqa: PLC0415 -- imports the engine; keep `crossfn --help` light

    include = _op_render.OperationInclude(
        function_results=req.include_function_results,
        full_operation=req.include_full_operation,
        context=req.include_context,
    )
    return await render_operation_inputs_async(
        load_operation(req), include=include, timeout=req.timeout, report=report, note=note
    )


render_operation = _blocking(
    render_operation_async,
    """Load, check and render the Operation ``req`` names; returns the documents ``crossplane render op`` prints.

    The Operation as last written (its status: conditions, step outputs, applied resource refs),
    then each resource it applied, then with ``-r`` the events as ``Result`` documents and with
    ``-c`` the captured ``Context``. A failed reconcile (a fatal result too) raises
    ``cannot render operation: ...``. ``report`` and ``note`` are :func:`render`'s.
    """,
)

render_operation_inputs = _blocking(
    render_operation_inputs_async,
    """Render Operation inputs already loaded and checked (:func:`load_operation`, :func:`operation_from_objects`).""",
)


def render_operation_objects(
    objects: OperationObjects,
    *,
    include: OperationInclude | None = None,
    timeout: float = 60.0,
    report: Callable[[str], None] = lambda _: None,
    note: Callable[[str], None] = lambda _: None,
) -> list[Any]:
    """Check and render ``objects``: :func:`render_operation` without files."""
    return render_operation_inputs(
        operation_from_objects(objects), include=include, timeout=timeout, report=report, note=note
    )
