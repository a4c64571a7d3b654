"""The one error hierarchy of crossfn.

Every error crossfn raises on purpose derives from :class:`CrossfnError`. The
command line catches that base, prints its message as one line and exits
non-zero; any other exception reaching the CLI is a crossfn bug. Errors from the
libraries underneath (grpc, YAML, protobuf, jsonschema) are translated where we
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
    ├── PipelineFatalError    a pipeline step returned a fatal result
    ├── RequirementsError     a function's requirements did not stabilise
    └── GoError               an emulated Go library call failed; the text is Go's

Subclasses exist only where a caller branches on them.
"""

from __future__ import annotations

__all__ = [
    "CrossfnError",
    "FieldNotFoundError",
    "FieldPathError",
    "FunctionInputError",
    "FunctionRunError",
    "GoError",
    "InputError",
    "PipelineFatalError",
    "RequirementsError",
    "quote",
]


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


class RequirementsError(CrossfnError):
    """A function kept changing its requirements past the iteration limit."""


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


def quote(s: str) -> str:
    """Quote ``s`` as Go's ``%q`` does, for error texts that must match Crossplane's.

    The one implementation is :func:`crossfn.gocompat.strconv.quote`; it is
    imported here, when first used, because :mod:`crossfn.gocompat` raises
    the errors of this module.
    """
    from crossfn.gocompat import strconv  # noqa: PLC0415 -- gocompat imports this module

    return strconv.quote(s)
