"""Render from objects: the same checks, texts and output as from files, without writing any."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crossfn import errors, render

_XBUCKET = Path(__file__).resolve().parents[2] / "examples" / "xbucket"


def _objects(**change: Any) -> render.Objects:
    given: dict[str, Any] = {
        "xr": render.load_one(_XBUCKET / "xr.yaml"),
        "composition": render.load_one(_XBUCKET / "composition.yaml"),
        "functions": render.load_documents(_XBUCKET / "functions.yaml"),
        "functions_dir": _XBUCKET,
    }
    return render.Objects(**{**given, **change})


@pytest.mark.parametrize("output", ["CURRENT", "CLASSIC"])
def test_objects_render_as_files_do(output: str) -> None:
    contract = getattr(render, output)
    req = render.Request(
        composite_resource=_XBUCKET / "xr.yaml",
        composition=_XBUCKET / "composition.yaml",
        functions=_XBUCKET / "functions.yaml",
        include_function_results=True,
    )
    want = render.render(req, output=contract)
    got = render.render_objects(_objects(), output=contract, include=render.Include(function_results=True))
    assert got == want


def test_objects_are_not_changed() -> None:
    objects = _objects(function_annotations=["a=b"])
    before = repr(objects)
    render.render_objects(objects)
    assert repr(objects) == before, "render works on copies: the caller's XR and Functions stay as they were"


@pytest.mark.parametrize(
    ("change", "want"),
    [
        pytest.param({"composition": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}},
                     'cannot load Composition from "composition": not a composition: ConfigMap/x',
                     id="NotAComposition"),
        pytest.param({"composition": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
                      "names": {"composition": "spec.tests[0].inputs.composition.raw"}},
                     'cannot load Composition from "spec.tests[0].inputs.composition.raw": not a composition: ConfigMap/x',
                     id="NamedByTheCaller"),
        pytest.param({"functions": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]},
                     'cannot load functions from "functions": not a function: Pod/p', id="NotAFunction"),
        pytest.param({"functions": {"kind": "Function"}},
                     'cannot load functions from "functions": not a list of objects', id="FunctionsNotAList"),
        pytest.param({"xr": ["x"]}, 'cannot load composite resource from "xr": not an object', id="XRNotAnObject"),
        pytest.param({"function_credentials": [{"apiVersion": "v1", "kind": "ConfigMap"}]},
                     'cannot load secrets from "function_credentials": document 1 is a ConfigMap, not a v1 Secret',
                     id="CredentialsNotSecrets"),
    ],
)  # fmt: skip
def test_objects_are_checked_as_files_are(change: dict[str, Any], want: str) -> None:
    with pytest.raises(errors.InputError) as got:
        render.from_objects(_objects(**change))
    assert str(got.value) == want
