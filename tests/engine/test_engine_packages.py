"""Active FunctionRevisions: endpoints and capabilities
(upstream core-2.1, core-2.5; core-4.1, core-4.2 TestRunFunction)."""

from typing import Any

import pytest

from crossfn import errors
from crossfn.engine import _packages


def rev(
    name: str,
    package: str | None,
    *,
    active: bool = True,
    endpoint: str = "fn:9443",
    capabilities: list[str] | None = None,
) -> dict[str, Any]:
    labels = {"pkg.crossplane.io/package": package} if package else {}
    status: dict[str, Any] = {"endpoint": endpoint}
    if capabilities is not None:
        status["capabilities"] = capabilities
    return {
        "metadata": {"name": name, "labels": labels},
        "spec": {"desiredState": "Active" if active else "Inactive"},
        "status": status,
    }


@pytest.mark.parametrize(
    ("revisions", "functions", "err", "reason"),
    [
        pytest.param([], ["fn"], None, "No revisions: nothing to refuse.", id="NoRevisions"),
        pytest.param(
            [rev("r", "fn", active=False, capabilities=["operation"])],
            ["fn"],
            None,
            "Inactive revisions are ignored.",
            id="NoActiveRevisions",
        ),
        pytest.param(
            [rev("r", "other", capabilities=["operation"])],
            ["fn"],
            None,
            "Other packages are ignored.",
            id="NoMatchingPackages",
        ),
        pytest.param(
            [rev("r", "fn", capabilities=["Composition", "operation"])],
            ["fn"],
            None,
            "Fuzzy match ignores case.",
            id="HasAllCapabilities",
        ),
        pytest.param(
            [rev("r", "fn", capabilities=[])],
            ["fn"],
            None,
            "No capabilities listed means a composition function.",
            id="NoCapabilitiesMeansComposition",
        ),
        pytest.param(
            [rev("r", "fn", capabilities=["operation"])],
            ["fn"],
            'function "fn" (active revision "r") is missing required capabilities: composition',
            "A missing capability is named.",
            id="MissingCapabilities",
        ),
        pytest.param(
            [rev("r", None, capabilities=["operation"])],
            ["fn"],
            None,
            "Unlabelled revisions are skipped.",
            id="MissingParentPackageLabel",
        ),
        pytest.param(
            [rev("a", "fn1", capabilities=["composition"]), rev("b", "fn2", capabilities=["operation"])],
            ["fn1", "fn2"],
            'function "fn2" (active revision "b") is missing required capabilities: composition',
            "Every named package is checked.",
            id="MultiplePackages",
        ),
    ],
)
def test_TestRevisionCapabilityChecker(
    revisions: list[dict[str, Any]], functions: list[str], err: str | None, reason: str
) -> None:
    if err is None:
        _packages.check_capabilities(revisions, functions, ["composition"])
        return
    with pytest.raises(errors.CrossfnError) as exc:
        _packages.check_capabilities(revisions, functions, ["composition"])
    assert str(exc.value) == err, reason


def test_fuzzy_matching_ignores_punctuation() -> None:
    _packages.check_capabilities(
        [rev("r", "fn", capabilities=["required-resources"])], ["fn"], ["RequiredResources"]
    )


@pytest.mark.parametrize(
    ("revisions", "want", "reason"),
    [
        pytest.param(
            [rev("r", "fn", active=False)],
            "cannot find an active FunctionRevision (a FunctionRevision with spec.desiredState: Active)",
            "No Active revision.",
            id="NoActiveRevisions",
        ),
        pytest.param(
            [rev("r", "fn", endpoint="")],
            'cannot determine gRPC target: active FunctionRevision "r" has an empty status.endpoint',
            "An empty endpoint.",
            id="ActiveRevisionHasNoEndpoint",
        ),
    ],
)
def test_TestRunFunction_revisions(revisions: list[dict[str, Any]], want: str, reason: str) -> None:
    with pytest.raises(errors.FunctionRunError) as exc:
        _packages.active_endpoint(revisions, "fn")
    assert str(exc.value) == want, reason


def test_active_endpoint() -> None:
    revs = [rev("old", "fn", active=False, endpoint="old:9443"), rev("new", "fn", endpoint="new:9443")]
    assert _packages.active_endpoint(revs, "fn") == "new:9443", "the active revision's endpoint is the target"
