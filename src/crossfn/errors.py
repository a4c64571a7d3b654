"""The one error hierarchy of crossfn.

Every error crossfn raises on purpose derives from :class:`CrossfnError`. The
command line catches that base, prints its message as one line and exits
non-zero; any other exception reaching the CLI is a crossfn bug. Errors from the
libraries underneath (grpc, YAML, protobuf, CEL) are translated where we
call them and chained with ``raise ... from``; they never escape.

Messages follow Crossplane: ``cannot <verb> <object>: <cause>``, lower case,
naming the step, function, file and field. Where the specification gives
Crossplane's exact text, the text is matched word for word.

The tree::

    CrossfnError
    ├── InputError            a user's input is wrong: a file, a field, a flag
    │   └── FunctionInputError  a step's input does not decode or validate
    ├── FieldPathError        a field path does not parse, or does not fit the object
    │   └── FieldNotFoundError  the path leads to nothing (callers treat it as optional)
    ├── FunctionRunError      a function could not be reached or run (transport)
    ├── FunctionOutputError   a function's response is not what the protocol allows
    ├── PipelineFatalError    a pipeline step returned a fatal result
    ├── RequirementsError     a function's requirements did not stabilise
    ├── MissingExtraError     an optional part is used without the extra that installs it
    └── GoError               an emulated Go library call failed; the text is Go's

Subclasses exist only where a caller branches on them. Modules define their own
subclasses of :class:`CrossfnError` where a caller branches on them (the
controller's ``ApiError``, patch-and-transform's ``TransformError``...); only
control-flow signals that never leave their module stay outside the tree.

To add context to an error on its way up, use :func:`wrap`, which keeps the
error's class and attributes and chains the original as the cause.
"""

from __future__ import annotations

import traceback
from typing import TypeVar

__all__ = [
    "CrossfnError",
    "FieldNotFoundError",
    "FieldPathError",
    "FunctionInputError",
    "FunctionOutputError",
    "FunctionRunError",
    "GoError",
    "InputError",
    "MissingExtraError",
    "PipelineFatalError",
    "RequirementsError",
    "import_failure",
    "quote",
    "wrap",
]

_E = TypeVar("_E", bound=BaseException)


class CrossfnError(Exception):
    """The base of every error crossfn raises on purpose."""


class InputError(CrossfnError):
    """A user's input (a file, a field of a manifest, a flag) is wrong.

    The CLI prints it as one line and exits 1 without writing any output.
    """


class FunctionInputError(InputError):
    """A function's step input does not decode or validate.

    Functions turn it into a Fatal result; it names the input field at fault.
    """


class FieldPathError(CrossfnError):
    """A field path does not parse, or the object's shape does not fit it (``crossfn.sdk.fieldpath``)."""


class FieldNotFoundError(FieldPathError):
    """A field path leads to nothing: callers branch on it to treat the path as optional."""


class FunctionRunError(CrossfnError):
    """A function could not be reached, or its call failed at the transport level."""


class FunctionOutputError(CrossfnError):
    """A function returned a response crossfn cannot use: a desired resource that is not
    a Kubernetes object, an invalid name, a cluster-scoped kind for a namespaced XR...

    Not the user's input at fault but the function's output; the text is Crossplane's.
    """


class RequirementsError(CrossfnError):
    """A function kept changing its requirements past the iteration limit."""


class MissingExtraError(CrossfnError, ImportError):
    """A command or module needs an extra that is not installed (``crossfn.extras``).

    Also an ``ImportError``: importing the module that needs it raises it. ``extra``
    names the extra; the text is one line, e.g.
    ``crossfn.render: needs the render extra: pip install 'crossfn[render]'``.
    """

    def __init__(self, message: str, *, extra: str = "") -> None:
        super().__init__(message)
        self.extra = extra


class GoError(CrossfnError):
    """An emulated Go library call (``crossfn.gocompat``) failed.

    The message is the Go library's own error text, for example
    ``strconv.ParseInt: parsing "x": invalid syntax``, so that callers can wrap
    it exactly as the Go program they emulate does. Callers branch on it to add
    that context; it reaching a user unwrapped is a crossfn bug.
    """


class PipelineFatalError(CrossfnError):
    """A pipeline step returned a result of severity Fatal.

    Callers branch on it: the controller keeps the partial result, render still
    reports the requirements recorded so far. The text is Crossplane's:
    ``pipeline step "<step>" returned a fatal result: <message>``.
    """

    def __init__(self, step: str, message: str) -> None:
        self.step = step
        self.message = message
        super().__init__(f"pipeline step {quote(step)} returned a fatal result: {message}")


def wrap(exc: _E, context: str) -> _E:
    """``exc`` again, as ``<context>: <exc>``: same class and attributes, ``exc`` chained as the cause.

    Use ``raise errors.wrap(exc, "cannot do x") from exc``. Unlike
    ``type(exc)(f"...: {exc}")`` it never calls the class's constructor, so it
    works for every error class, whatever its constructor takes.
    """
    wrapped = exc.__class__.__new__(exc.__class__)
    wrapped.__dict__.update(exc.__dict__)
    wrapped.args = (f"{context}: {exc}",)
    wrapped.__cause__ = exc
    wrapped.__traceback__ = None
    return wrapped


def quote(s: str) -> str:
    """Quote ``s`` as Go's ``%q`` does, for error texts that must match Crossplane's.

    The one implementation is :func:`crossfn.gocompat.strconv.quote`; it is
    imported here, when first used, because :mod:`crossfn.gocompat` raises
    the errors of this module.
    """
    from crossfn.gocompat import strconv  # noqa: PLC0415 -- gocompat imports this module

    return strconv.quote(s)


def import_failure(module: str, exc: BaseException) -> str:
    """One line for module ``module`` that failed to import: what it raised and where, a syntax error's place.

    An ``ImportError`` (the module or a name in it is missing) is ``cannot import <module>: ...``; anything
    else the module's code raised, ``SystemExit`` included, is ``importing <module> raised
    <Type>: <message> (at <file>:<line>)``.
    """
    if isinstance(exc, ImportError):
        return f"cannot import {module}: " + " ".join(str(exc).split())
    if isinstance(exc, SyntaxError):
        return f"importing {module} raised SyntaxError: {exc.msg} (at {exc.filename}:{exc.lineno})"
    text = " ".join(str(exc).split())
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"importing {module} raised {type(exc).__name__}" + (f": {text}" if text else "") + where
