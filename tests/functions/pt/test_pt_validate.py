"""Conformance: validate_test.go (upstream pt-10.6) plus the upstream pt-2.13 messages and strict decoding
(upstream pt-2.1)."""

from __future__ import annotations

from typing import Any

import pytest
from ptcases import inp, run

from crossfn import errors
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.functions.patch_and_transform import validation


def _template(**fields: Any) -> ptinput.ComposedTemplate:
    return ptinput.decode(inp(resources=[{"name": "t", **fields}])).resources[0]


def _kind_and_path(err: Any) -> tuple[str, str] | None:
    """``("Required", path)`` or ``("Invalid", path)``: the field.ErrorType's first word."""
    return None if err is None else (err.type.value.split()[0], err.path)


@pytest.mark.parametrize(
    ("check", "want"),
    [
        pytest.param({"type": "None"}, None, id="ValidTypeNone"),
        pytest.param(
            {"type": "MatchString", "matchString": "foo", "fieldPath": "spec.foo"},
            None,
            id="ValidTypeMatchString",
        ),
        pytest.param(
            {
                "type": "MatchCondition",
                "matchCondition": {"type": "someType", "status": "someStatus"},
                "fieldPath": "spec.foo",
            },
            None,
            id="ValidTypeMatchCondition",
        ),
        pytest.param({"type": "MatchTrue", "fieldPath": "spec.foo"}, None, id="ValidTypeMatchTrue"),
        pytest.param({"type": "MatchFalse", "fieldPath": "spec.foo"}, None, id="ValidTypeMatchFalse"),
        pytest.param({"type": "foo"}, ("Invalid", "type"), id="InvalidType"),
    ],
)
def test_validate_readiness_check(check: dict[str, Any], want: tuple[str, str] | None) -> None:
    """TestValidateReadinessCheck: error type and field path."""
    err = validation.validate_readiness_check(_template(readinessChecks=[check]).readiness_checks[0])
    assert _kind_and_path(err) == want


@pytest.mark.parametrize(
    ("detail", "want"),
    [
        pytest.param({"type": "wat"}, ("Invalid", "type"), id="InvalidType"),
        pytest.param({"type": "FromValue"}, ("Required", "name"), id="EmptyName"),
        pytest.param({"type": "FromValue", "name": "cool"}, ("Required", "value"), id="InvalidValue"),
        pytest.param(
            {"type": "FromConnectionSecretKey", "name": "cool"},
            ("Required", "fromConnectionSecretKey"),
            id="InvalidFromConnectionSecretKey",
        ),
        pytest.param(
            {"type": "FromFieldPath", "name": "cool"},
            ("Required", "fromFieldPath"),
            id="InvalidFromFieldPath",
        ),
        pytest.param({"type": "FromValue", "name": "cool", "value": "cooler"}, None, id="ValidValue"),
        pytest.param(
            {"type": "FromConnectionSecretKey", "name": "cool", "fromConnectionSecretKey": "key"},
            None,
            id="ValidFromConnectionSecretKey",
        ),
        pytest.param(
            {"type": "FromFieldPath", "name": "cool", "fromFieldPath": "status.coolness"},
            None,
            id="ValidFromFieldPath",
        ),
    ],
)
def test_validate_connection_detail(detail: dict[str, Any], want: tuple[str, str] | None) -> None:
    """TestValidateConnectionDetail: error type and field path."""
    err = validation.validate_connection_detail(_template(connectionDetails=[detail]).connection_details[0])
    assert _kind_and_path(err) == want


COMBINE = {
    "strategy": "string",
    "variables": [{"fromFieldPath": "a"}, {"fromFieldPath": "b"}],
    "string": {"fmt": "%s-%s"},
}


@pytest.mark.parametrize(
    ("patch", "want"),
    [
        pytest.param(
            {"type": "FromCompositeFieldPath", "fromFieldPath": "spec.forProvider.foo"},
            None,
            id="ValidFromCompositeFieldPath",
        ),
        pytest.param(
            {
                "type": "FromCompositeFieldPath",
                "fromFieldPath": "spec.forProvider.foo",
                "transforms": [{"type": "math"}],
            },
            ("Required", "transforms[0].math"),
            id="FromCompositeFieldPathWithInvalidTransforms",
        ),
        pytest.param(
            {"type": "FromCompositeFieldPath"},
            ("Required", "fromFieldPath"),
            id="InvalidFromCompositeFieldPathMissingFromFieldPath",
        ),
        pytest.param(
            {"type": "ToCompositeFieldPath"},
            ("Required", "fromFieldPath"),
            id="InvalidFromCompositeFieldPathMissingToFieldPath",
        ),
        pytest.param(
            {"type": "PatchSet"},
            ("Required", "patchSetName"),
            id="Invalidv1beta1.PatchSetMissingv1beta1.PatchSetName",
        ),
        pytest.param(
            {"type": "CombineToComposite"}, ("Required", "combine"), id="InvalidCombineMissingCombine"
        ),
        pytest.param(
            {"type": "CombineToComposite", "combine": COMBINE},
            ("Required", "toFieldPath"),
            id="InvalidCombineMissingToFieldPath",
        ),
    ],
)
def test_validate_patch(patch: dict[str, Any], want: tuple[str, str] | None) -> None:
    """TestValidatePatch: error type and field path."""
    err = validation.validate_patch(_template(patches=[patch]).patches[0])
    assert _kind_and_path(err) == want


@pytest.mark.parametrize(
    ("combine", "want"),
    [
        pytest.param({}, ("Required", "combine.strategy"), id="MissingStrategy"),
        pytest.param({"strategy": "Smoosh"}, ("Invalid", "combine.strategy"), id="InvalidStrategy"),
        pytest.param(COMBINE, None, id="ValidStringCombine"),
        pytest.param(
            {"strategy": "string", "string": {"fmt": "%s"}},
            ("Required", "combine.variables"),
            id="MissingVariables",
        ),
        pytest.param(
            {**COMBINE, "variables": [{"fromFieldPath": "a"}, {"fromFieldPath": ""}]},
            ("Required", "combine.variables[1].fromFieldPath"),
            id="VariableMissingFromFieldPath",
        ),
        pytest.param(
            {"strategy": "string", "variables": [{"fromFieldPath": "a"}]},
            ("Required", "combine.string"),
            id="MissingStringConfig",
        ),
    ],
)
def test_validate_combine(combine: dict[str, Any], want: tuple[str, str] | None) -> None:
    """TestValidateCombine, through a combine patch (the path gains the ``combine.`` prefix)."""
    patch = {"type": "CombineFromComposite", "toFieldPath": "x", "combine": combine}
    assert _kind_and_path(validation.validate_patch(_template(patches=[patch]).patches[0])) == want


@pytest.mark.parametrize(
    ("res", "message"),
    [
        pytest.param(
            inp(patchSets=[{"patches": []}]), "name: Required value: name is required", id="PatchSetName"
        ),
        pytest.param(
            inp(patchSets=[{"name": "s", "patches": [{"type": "PatchSet"}]}], resources=[{"name": "a"}]),
            'patches[0].type: Invalid value: "PatchSet": patch type *v1beta1.PatchSetPatch does not support patch of type PatchSet',
            id="PatchSetInPatchSet",
        ),
        pytest.param(
            inp(resources=[{}]), "resources[0].name: Required value: name is required", id="TemplateName"
        ),
        pytest.param(
            inp(resources=[{"name": "a", "patches": [{"type": "Nope<"}]}]),
            'resources[0].patches[0].type: Invalid value: "Nope\\u003c": unknown patch type',
            id="UnknownPatchTypeJSONQuoted",
        ),
        pytest.param(
            inp(
                resources=[
                    {"name": "a", "patches": [{"fromFieldPath": "a", "policy": {"toFieldPath": "Smush"}}]}
                ]
            ),
            'resources[0].patches[0].policy.toFieldPathPolicy: Invalid value: "Smush": unknown toFieldPathPolicy',
            id="UnknownToPolicy",
        ),
        pytest.param(
            inp(
                resources=[
                    {"name": "a", "patches": [{"fromFieldPath": "a", "policy": {"fromFieldPath": "Maybe"}}]}
                ]
            ),
            'resources[0].patches[0].policy.fromFieldPathPolicy: Invalid value: "Maybe": unknown fromFieldPathPolicy',
            id="UnknownFromPolicy",
        ),
        pytest.param(
            inp(
                resources=[
                    {
                        "name": "a",
                        "patches": [
                            {
                                "type": "CombineFromComposite",
                                "toFieldPath": "x",
                                "combine": COMBINE,
                                "transforms": [{"type": "bad"}],
                            }
                        ],
                    }
                ]
            ),
            None,
            id="CombineTransformsNotValidated",
        ),
        pytest.param(
            inp(environment={"patches": [{"type": "CombineToEnvironment", "fromFieldPath": "a"}]}),
            'environment.patches[0][type]: Invalid value: "CombineToEnvironment": invalid environment patch type',
            id="EnvironmentPatchType",
        ),
        pytest.param(
            inp(resources=[{"name": "a", "readinessChecks": [{"type": "NonEmpty"}]}]),
            "resources[0].readinessChecks[0].fieldPath: Required value: cannot be empty",
            id="ReadinessFieldPath",
        ),
        pytest.param(
            inp(
                resources=[
                    {
                        "name": "a",
                        "patches": [
                            {
                                "fromFieldPath": "a",
                                "transforms": [{"type": "math", "math": {"type": "Multiply"}}],
                            }
                        ],
                    }
                ]
            ),
            "resources[0].patches[0].transforms[0].math.multiply: Required value: must specify a value if a multiply math transform is specified",
            id="TransformErrorPrefixed",
        ),
    ],
)
def test_validate_messages(res: dict[str, Any], message: str | None) -> None:
    """Whole-input validation: Go's order, paths and texts (upstream pt-2.13)."""
    err = validation.validate(ptinput.decode(res))
    assert (None if err is None else str(err)) == message


@pytest.mark.parametrize(
    ("res", "message"),
    [
        pytest.param(
            inp(resources=[{"name": "a", "nope": 1}]),
            'resources[0]: unknown field "nope"',
            id="UnknownTemplateField",
        ),
        pytest.param(
            inp(
                resources=[{"name": "a", "patches": [{"fromFieldPath": "a", "policy": {"mergeOptions": {}}}]}]
            ),
            'resources[0].patches[0].policy: unknown field "mergeOptions"',
            id="LegacyMergeOptions",
        ),
        pytest.param(
            inp(
                resources=[
                    {
                        "name": "a",
                        "patches": [
                            {
                                "fromFieldPath": "a",
                                "transforms": [
                                    {"type": "math", "math": {"type": "Multiply", "multiply": 1.5}}
                                ],
                            }
                        ],
                    }
                ]
            ),
            "resources[0].patches[0].transforms[0].math.multiply: expected an integer, got 1.5",
            id="NonIntegralInteger",
        ),
        pytest.param(
            inp(resources=[{"name": 3}]), "resources[0].name: expected a string, got number", id="WrongType"
        ),
        pytest.param(inp(resources={"name": "a"}), "resources: expected an array, got object", id="NotAList"),
    ],
)
def test_strict_decoding(res: dict[str, Any], message: str) -> None:
    """Unknown fields anywhere and non-integral integers fail decoding (upstream pt-2.1, pt-9 item 17)."""
    with pytest.raises(errors.FunctionInputError) as e:
        ptinput.decode(res)
    assert str(e.value) == message


def test_decode_error_is_fatal_result() -> None:
    """A decoding failure is a Fatal result with Go's prefix."""
    got = run({"input": inp(resources=[{"name": "a", "nope": 1}])})
    assert got["results"][0]["message"] == 'cannot get Function input: resources[0]: unknown field "nope"'
    assert got["results"][0]["severity"] == "SEVERITY_FATAL"
