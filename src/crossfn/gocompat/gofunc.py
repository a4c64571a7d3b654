"""A Go function as Go's reflection-based callers (``text/template``) see it: its signature, then a body.

Go's ``text/template`` checks each argument against the function's parameter
types before the call (``wrong type for value; expected string; got int``),
converts untyped constants to them, and wraps a returned error or a panic as
``error calling NAME: ...``. A Python callable alone says none of that, so a
function meant for templates is declared as a :class:`Func`: the Go type
names of its parameters, whether the last is variadic, and whether it returns
an error beside its value.

The body receives values of the Go value model (:mod:`crossfn.gocompat.values`),
already checked and converted to the declared parameter types, and returns
one. A Go ``error`` result that is not nil is :class:`crossfn.errors.GoError`
raised with the error's text; a Go panic is :class:`Panic` raised with the
text ``%v`` prints of the panic value. Both end the template's execution with
Go's message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from crossfn import errors

__all__ = ["ANY", "Func", "Panic"]

ANY = "interface {}"
"""The Go type name of the empty interface: a parameter that takes any value."""


class Panic(errors.GoError):
    """A Go panic inside a function, with the text ``fmt.Sprint`` gives of the panic value."""


@dataclasses.dataclass(frozen=True)
class Func:
    """A Go function: parameter types by Go name (``string``, ``int``, ``float64``, ``interface {}``,
    ``[]interface {}``, ``map[string]interface {}``, ...), the last repeated when ``variadic``
    (its name is the element type, as in ``...interface {}``), and ``returns_error`` when Go's
    signature ends in ``error``. ``returns`` is the Go type of the value result, for ``%T``-style
    messages and assignability checks of what a pipeline passes on (``""`` when it returns only an error)."""

    fn: Callable[..., Any]
    params: tuple[str, ...]
    returns: str = ANY
    variadic: bool = False
    returns_error: bool = False

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)
