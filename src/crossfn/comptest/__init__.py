"""``crossfn test``: run ``CompositionTest`` and ``OperationTest`` files (Crossplane's proposed test APIs) without a cluster.

A CompositionTest (``test.crossplane.io/v1alpha1``) lists test cases: the
inputs of a render (XR, Composition, Functions, observed and extra
resources, context), patches to the XR, and chainsaw-style assertions: partial
objects that some rendered document must match. An OperationTest does the same for an Operation (its Operation, Functions, required
resources, credentials and context) and renders it as ``crossfn render op`` does.
Use it from Python as the CLI does::

    from crossfn import comptest
    cases = comptest.load([Path("tests/")])      # InputError on a bad test file
    outcomes = comptest.run(cases)               # renders with crossfn.render
    print(comptest.text(outcomes), end="")

The package sits above :mod:`crossfn.render` and :mod:`crossfn.validate` and
reuses them: a test renders exactly as ``crossfn render --classic -x -r -c`` would
(from the test's objects, with no files in between). The
format, the matching rules and the differences from the upstream proposal
are in ``docs/testing.md``.
"""

from __future__ import annotations

from crossfn.comptest._load import API_VERSION, KIND, KINDS, OPERATION_KIND, load
from crossfn.comptest._match import Mismatch, mismatches
from crossfn.comptest._model import AnyCase, Case, Expected, OperationCase, Source
from crossfn.comptest._report import junit, text, to_json
from crossfn.comptest._run import Failure, Outcome, run

__all__ = [
    "API_VERSION",
    "KIND",
    "KINDS",
    "OPERATION_KIND",
    "AnyCase",
    "Case",
    "Expected",
    "Failure",
    "Mismatch",
    "OperationCase",
    "Outcome",
    "Source",
    "junit",
    "load",
    "mismatches",
    "run",
    "text",
    "to_json",
]
