"""Conformance: connection_test.go (upstream pt-10.5):
extraction, the v2 Secret reference, v1 versus v2 XRs."""

from __future__ import annotations

from typing import Any

import pytest
from ptcases import inp

from crossfn import errors
from crossfn.functions.patch_and_transform import connection
from crossfn.functions.patch_and_transform import input as ptinput


def _details(*details: dict[str, Any]) -> tuple[ptinput.ConnectionDetail, ...]:
    return (
        ptinput.decode(inp(resources=[{"name": "t", "connectionDetails": list(details)}]))
        .resources[0]
        .connection_details
    )


def test_extract_missing_name_error() -> None:
    """TestExtractConnectionDetails/MissingNameError: entries are re-validated."""
    with pytest.raises(errors.CrossfnError) as e:
        connection.extract({}, {}, _details({"type": "FromValue", "value": "x"}))
    assert str(e.value) == "invalid: name: Required value: name is required"


def test_extract_fetch_config_success() -> None:
    """TestExtractConnectionDetails/FetchConfigSuccess, with real metadata paths; numbers go out as Go JSON."""
    obj = {
        "metadata": {"name": "test", "generation": 4.0},
        "spec": {"writeConnectionSecretToRef": {"name": "cool-secret", "namespace": "cool-namespace"}},
    }
    got = connection.extract(
        obj,
        {"foo": b"a", "bar": b"b"},
        _details(
            {"type": "FromConnectionSecretKey", "name": "bar", "fromConnectionSecretKey": "bar"},
            {"type": "FromConnectionSecretKey", "name": "none", "fromConnectionSecretKey": "none"},
            {"type": "FromConnectionSecretKey", "name": "convfoo", "fromConnectionSecretKey": "foo"},
            {"type": "FromValue", "name": "fixed", "value": "value"},
            {"type": "FromFieldPath", "name": "name", "fromFieldPath": "metadata.name"},
            {"type": "FromFieldPath", "name": "generation", "fromFieldPath": "metadata.generation"},
            {
                "type": "FromFieldPath",
                "name": "secretName",
                "fromFieldPath": "spec.writeConnectionSecretToRef.name",
            },
            {
                "type": "FromFieldPath",
                "name": "secretNamespace",
                "fromFieldPath": "spec.writeConnectionSecretToRef.namespace",
            },
            {"type": "FromFieldPath", "name": "missing", "fromFieldPath": "spec.nope"},
        ),
    )
    assert got == {
        "convfoo": b"a",
        "bar": b"b",
        "fixed": b"value",
        "name": b"test",
        "generation": b"4",
        "secretName": b"cool-secret",
        "secretNamespace": b"cool-namespace",
    }


def _ref(**fields: Any) -> ptinput.ConnectionSecretRef | None:
    return ptinput.decode(
        inp(resources=[{"name": "t"}], writeConnectionSecretToRef=fields)
    ).write_connection_secret_to_ref


XR_REF = {
    "metadata": {"name": "my-xr", "namespace": "xr-namespace"},
    "spec": {"writeConnectionSecretToRef": {"name": "xr-secret", "namespace": "xr-namespace"}},
}


@pytest.mark.parametrize(
    ("xr", "ref", "want", "error"),
    [
        pytest.param(XR_REF, None, ("xr-secret", "xr-namespace"), None, id="XRRefProvidedNoInput"),
        pytest.param(
            {},
            {"name": "my-custom-secret", "namespace": "custom-namespace"},
            ("my-custom-secret", "custom-namespace"),
            None,
            id="InputProvidedNoXRRef",
        ),
        pytest.param(
            XR_REF,
            {"name": "my-custom-secret", "namespace": "custom-namespace"},
            ("xr-secret", "xr-namespace"),
            None,
            id="XRRefAndInputProvided",
        ),
        pytest.param(
            {"metadata": {"name": "my-xr", "namespace": "xr-namespace"}},
            None,
            ("my-xr-connection", "xr-namespace"),
            None,
            id="GenerateDefault",
        ),
        pytest.param(
            {
                "metadata": {"name": "my-database", "namespace": "production", "uid": "test-uid-456"},
                "spec": {"parameters": {"env": "prod"}},
            },
            {
                "patches": [
                    {
                        "type": "FromCompositeFieldPath",
                        "fromFieldPath": "metadata.uid",
                        "toFieldPath": "name",
                        "transforms": [
                            {"type": "string", "string": {"type": "Format", "fmt": "%s-cool-creds"}}
                        ],
                    },
                    {
                        "type": "FromCompositeFieldPath",
                        "fromFieldPath": "spec.parameters.env",
                        "toFieldPath": "namespace",
                    },
                ]
            },
            ("test-uid-456-cool-creds", "prod"),
            None,
            id="PatchFromCompositeFieldPath",
        ),
        pytest.param(
            {
                "metadata": {"name": "db-instance", "namespace": "default"},
                "spec": {"parameters": {"appName": "myapp", "env": "staging"}},
            },
            {
                "patches": [
                    {
                        "type": "CombineFromComposite",
                        "toFieldPath": "name",
                        "combine": {
                            "strategy": "string",
                            "variables": [
                                {"fromFieldPath": "spec.parameters.appName"},
                                {"fromFieldPath": "spec.parameters.env"},
                            ],
                            "string": {"fmt": "%s-%s-cool-creds"},
                        },
                    }
                ]
            },
            ("myapp-staging-cool-creds", "default"),
            None,
            id="CombineFromComposite",
        ),
        pytest.param(
            {"spec": {"targetNamespace": "custom-ns"}},
            {
                "name": "base-secret-name",
                "namespace": "base-secret-namespace",
                "patches": [
                    {
                        "type": "FromCompositeFieldPath",
                        "fromFieldPath": "spec.targetNamespace",
                        "toFieldPath": "namespace",
                    }
                ],
            },
            ("base-secret-name", "custom-ns"),
            None,
            id="PatchesWithStaticBase",
        ),
        pytest.param(
            {},
            {"patches": [{"type": "CombineToEnvironment", "fromFieldPath": "a"}]},
            None,
            "cannot apply connection secret patches: unsupported patch type CombineToEnvironment at index 0",
            id="UnsupportedPatchType",
        ),
        pytest.param(
            {},
            {
                "patches": [
                    {"type": "FromCompositeFieldPath", "fromFieldPath": "spec..x", "toFieldPath": "name"}
                ]
            },
            ("-connection", ""),
            None,
            id="OptionalFieldPatchSwallowsEveryError",
        ),
        pytest.param(
            {},
            {
                "patches": [
                    {
                        "type": "CombineFromComposite",
                        "toFieldPath": "name",
                        "combine": {
                            "strategy": "string",
                            "variables": [{"fromFieldPath": "spec.x"}],
                            "string": {"fmt": "%s"},
                        },
                    }
                ]
            },
            None,
            "cannot apply connection secret patches: cannot apply patch type CombineFromComposite at index 0: spec: no such field",
            id="CombineSwallowsNothing",
        ),
    ],
)
def test_get_connection_secret_ref(
    xr: dict[str, Any], ref: dict[str, Any] | None, want: tuple[str, str] | None, error: str | None
) -> None:
    """TestGetConnectionSecretRef, plus the upstream pt-5.4 error rules for connection-secret patches."""
    decoded = _ref(**ref) if ref is not None else None
    if error is None:
        assert connection.secret_ref(xr, decoded) == want
        return
    with pytest.raises(errors.CrossfnError) as e:
        connection.secret_ref(xr, decoded)
    assert str(e.value) == error


@pytest.mark.parametrize(
    ("xr", "want"),
    [
        pytest.param(
            {"spec": {"writeConnectionSecretToRef": {"name": "s"}}},
            True,
            id="V1LegacyXRWithoutCrossplaneField",
        ),
        pytest.param(
            {"spec": {"crossplane": {"compositionRef": {"name": "c"}}}},
            False,
            id="V2ModernXRWithCrossplaneField",
        ),
        pytest.param(
            {"spec": {"crossplane": {}, "writeConnectionSecretToRef": {"name": "s"}}},
            False,
            id="V2XRWithWriteConnectionSecretToRefInSchema",
        ),
    ],
)
def test_supports_connection_details(xr: dict[str, Any], want: bool) -> None:
    """TestSupportsConnectionDetails: only XRs without spec.crossplane have native connection details."""
    assert connection.supports_connection_details(xr) is want
