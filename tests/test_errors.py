"""The error tree: context is added without losing the class, and every error crossfn raises is in the tree."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

import pytest

import crossfn
from crossfn import engine, errors
from crossfn.controller.kube import _api
from crossfn.functions.patch_and_transform import transforms
from crossfn.proto.v1 import run_function_pb2 as fnv1


class _Rejected(errors.CrossfnError):
    """An error whose constructor takes more than a message, as many in the tree do."""

    def __init__(self, step: str, code: int) -> None:
        self.step = step
        self.code = code
        super().__init__(f"step {step} rejected with code {code}")


@pytest.mark.parametrize(
    ("reason", "exc", "attributes"),
    [
        pytest.param("A plain error.", errors.InputError("bad field"), {}, id="Plain"),
        pytest.param(
            "Two positional arguments.",
            errors.PipelineFatalError("step-a", "boom"),
            {"step": "step-a", "message": "boom"},
            id="PipelineFatal",
        ),
        pytest.param(
            "Keyword-only attributes survive.",
            _api.NotFound("configmaps x not found", status=404, reason="NotFound"),
            {"status": 404, "reason": "NotFound"},
            id="ApiError",
        ),
        pytest.param(
            "An index and a message.",
            transforms.TransformError(2, "bad"),
            {"index": 2, "reason": "bad"},
            id="TransformError",
        ),
        pytest.param(
            "A class defined by a caller.", _Rejected("s", 7), {"step": "s", "code": 7}, id="Custom"
        ),
    ],
)
def test_wrap_keeps_class_and_attributes_and_chains(
    reason: str, exc: errors.CrossfnError, attributes: dict[str, Any]
) -> None:
    wrapped = errors.wrap(exc, "cannot do it")
    assert type(wrapped) is type(exc), reason
    assert str(wrapped) == f"cannot do it: {exc}", reason
    assert wrapped.__cause__ is exc, reason
    assert {k: getattr(wrapped, k) for k in attributes} == attributes, reason
    assert str(exc) != str(wrapped), "the original is left as it was"


class _Raises:
    """A runner whose function fails with ``exc``."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        raise self.exc


async def test_pipeline_names_the_step_for_any_error_class() -> None:
    """Regression: the pipeline re-raised ``type(exc)(message)``, a TypeError for this class."""
    xr = {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "x", "uid": "u"}}
    with pytest.raises(_Rejected) as info:
        await engine.compose(xr, [engine.PipelineStep("step-a", "fn")], _Raises(_Rejected("inner", 3)))
    assert str(info.value).endswith(": step inner rejected with code 3"), str(info.value)
    assert '"step-a"' in str(info.value)
    assert (info.value.step, info.value.code) == ("inner", 3)
    assert isinstance(info.value.__cause__, _Rejected)


# Exceptions that never leave their module: signals between two functions of one module, caught there.
_SIGNALS = {
    "crossfn.gocompat._yaml_events.Unsupported": "tells the loader to fall back to the slow path",
    "crossfn.gocompat.celcost._Exceeded": "unwinds a cost walk that hit its limit",
    "crossfn.validate._cel._OutOfBudget": "unwinds a CEL evaluation that hit its budget",
    "crossfn.functions.patch_and_transform.transforms._ResolveError": "unwinds to the transform that failed",
    "crossfn.engine._inprocess._WorkerEndedError": "asks the runner to take another worker",
    # The C extension's "cannot convert this fast": the caller falls back to pure Python.
    "crossfn.sdk._structpb.UnsupportedError": "tells the caller to take the pure-Python path",
    # Raised only inside the Starlark sandbox's own process, which imports nothing from crossfn.
    "crossfn.functions.starlark._worker.HelperError": "lives in the sandbox process",
    # Raised only in a sandbox process before its worker runs (``python -I _landlock.py``): imports nothing from crossfn.
    "crossfn.functions._landlock.LandlockError": "lives in the sandbox process",
    # A BaseException on purpose: a function's `except Exception` must not swallow its deadline.
    "crossfn.sdk._calls.DeadlineExceeded": "interrupts a function past its deadline",
    "crossfn.functions.python._worker._TimeLimit": "interrupts a function-python script past its deadline",
    "crossfn.functions.status_transformer._MatchError": "unwinds to the failure condition upstream sets",
    "crossfn.gocompat.jsonstruct._Stop": "stops strict decoding at the first error",
    "crossfn.gocompat._timelayout._BadError": "Go's errBad: unwinds to the layout element that did not parse",
    "crossfn.gocompat.strconv._NumRangeError": "ParseUint's ErrRange, which ParseInt turns into its own error",
    "crossfn.functions._gosdk.Fatal": "unwinds a built-in to the one Fatal result upstream's code returns",
    "crossfn.functions._selection.Panic": "unwinds to the Fatal result given where upstream's Go code crashes",
    "crossfn.functions.go_templating._input.InputPanic": "unwinds to the Fatal result given where upstream crashes",
    "crossfn.gocompat.template._exec._BreakSignal": "unwinds a {{break}} to its range",
    "crossfn.gocompat.template._exec._ContinueSignal": "unwinds a {{continue}} to its range",
    "crossfn.sdk.resource._TooDeepError": "unwinds a too-deep object to the one ConversionError line",
}


def _crossfn_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(crossfn.__path__, "crossfn."):
        if ".proto" in module_info.name or module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module_info.name:
                found[f"{module_info.name}.{name}"] = obj
    return found


def test_every_error_is_in_the_tree() -> None:
    exceptions = _crossfn_exceptions()
    assert "crossfn.controller.kube._api.ApiError" in exceptions, "the walk finds the modules"
    outside = sorted(
        name
        for name, cls in exceptions.items()
        if not issubclass(cls, errors.CrossfnError) and name not in _SIGNALS
    )
    assert outside == [], "derive these from crossfn.errors.CrossfnError"
    optional = {"crossfn.sdk._structpb.UnsupportedError"}  # the C extension is not built everywhere
    assert set(_SIGNALS) - optional <= set(exceptions), "every listed signal still exists"
