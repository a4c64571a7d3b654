"""The foundation every layer stands on: the wire protocol and the Struct conversion."""

from __future__ import annotations

import hashlib

import pytest

from crossfn import errors
from crossfn.errors import PipelineFatalError
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossfn.sdk import resource


def test_tag_golden_vector() -> None:
    """TestTag/NilRequest: sha256 of the deterministic serialisation, meta unset (upstream core-2.4)."""
    req = fnv1.RunFunctionRequest()
    req.observed.composite.resource.update({"apiVersion": "example.org/v1", "kind": "Test"})
    tag = hashlib.sha256(req.SerializeToString(deterministic=True)).hexdigest()
    assert tag == "60e065117e1992fb17c3c5ef2a50de370eeec23fbd380836d31ad388bbe4e082"


def test_v1beta1_is_wire_identical() -> None:
    """v1beta1 is a generated copy of v1: the same bytes decode into either package."""
    req = fnv1.RunFunctionRequest(input=resource.dict_to_struct({"a": 1}))
    req.required_resources["x"].SetInParent()
    beta = fnv1beta1.RunFunctionRequest.FromString(req.SerializeToString())
    assert beta.SerializeToString(deterministic=True) == req.SerializeToString(deterministic=True)
    assert fnv1.DESCRIPTOR.package == "apiextensions.fn.proto.v1"
    assert fnv1beta1.DESCRIPTOR.package == "apiextensions.fn.proto.v1beta1"


@pytest.mark.parametrize(
    ("value", "want"),
    [
        pytest.param({"n": 3}, {"n": 3}, id="WholeNumberStaysInt"),
        pytest.param({"n": 3.5}, {"n": 3.5}, id="FractionStaysFloat"),
        pytest.param(
            {"a": [1, "x", None, True, {"b": 2.0}]}, {"a": [1, "x", None, True, {"b": 2}]}, id="Nested"
        ),
        pytest.param({}, {}, id="Empty"),
    ],
)
def test_struct_round_trip(value: dict[str, object], want: dict[str, object]) -> None:
    """Crossplane sends whole numbers as doubles; they come back as int."""
    got = resource.struct_to_dict(resource.dict_to_struct(value))
    assert got == want
    assert [type(x) for x in _leaves(got)] == [type(x) for x in _leaves(want)]


def _leaves(v: object) -> list[object]:
    if isinstance(v, dict):
        return [x for k in sorted(v) for x in _leaves(v[k])]
    if isinstance(v, list):
        return [x for i in v for x in _leaves(i)]
    return [v]


@pytest.mark.parametrize(
    ("step", "message", "want"),
    [
        pytest.param(
            "run-cool-function",
            "oh no",
            'pipeline step "run-cool-function" returned a fatal result: oh no',
            id="PopulatedFields",
        ),
        pytest.param("", "", 'pipeline step "" returned a fatal result: ', id="EmptyFields"),
    ],
)
def test_pipeline_fatal_error_text(step: str, message: str, want: str) -> None:
    """TestPipelineFatalErrorError: Crossplane's exact text."""
    assert str(PipelineFatalError(step, message)) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        pytest.param("a\u00a0b", '"a\\u00a0b"', id="NoBreakSpace"),
        pytest.param("a\u2028b\u2029", '"a\\u2028b\\u2029"', id="LineAndParagraphSeparators"),
        pytest.param("\u200b\ufeff", '"\\u200b\\ufeff"', id="FormatCharacters"),
        pytest.param("\x07\x1b", '"\\a\\x1b"', id="BellAndEscape"),
        pytest.param("é\U0001f600", '"é\U0001f600"', id="PrintableKept"),
    ],
)
def test_errors_quote_is_go_strconv_quote(text: str, want: str) -> None:
    """Error texts quote as Go's ``%q`` (strconv.Quote): non-printable runes escape, printable ones stay."""
    assert errors.quote(text) == want
    assert str(PipelineFatalError(text, "x")) == f"pipeline step {want} returned a fatal result: x"
