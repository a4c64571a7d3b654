"""Composed resource names: ChildName vectors and RFC 1123 checks (upstream core-2.10 steps 6–7,
upstream core-4.9 internal/names)."""

import random

import pytest

from crossfn.engine import _naming

UID = "75e4a668-035f-4ce8-8c45-f4d3ac850155"


@pytest.mark.parametrize(
    ("parent", "uid", "child", "want", "reason"),
    [
        pytest.param(
            "cool-resource-",
            UID,
            "database",
            "cool-resource-38ce86992a27",
            "A prefix ending in - is kept.",
            id="WithTrailingHyphen",
        ),
        pytest.param(
            "resource",
            UID,
            "database",
            "resource-38ce86992a27",
            "A missing trailing - is added.",
            id="WithoutTrailingHyphen",
        ),
        pytest.param(
            "", UID, "database", "38ce86992a27", "An empty prefix gives the bare suffix.", id="EmptyParent"
        ),
        pytest.param(
            "parent-",
            "uid-123",
            "database",
            "parent-5f968d238736",
            "The owner UID feeds the hash.",
            id="DifferentUID123",
        ),
        pytest.param(
            "parent-",
            "uid-456",
            "database",
            "parent-bd4f105d0576",
            "Another UID gives another name.",
            id="DifferentUID456",
        ),
        pytest.param(
            "parent-",
            UID,
            "storage",
            "parent-abcd22a110fe",
            "The child name feeds the hash.",
            id="DifferentChild",
        ),
        pytest.param(
            "very-long-parent-name-" * 3,
            UID,
            "database",
            "very-long-parent-name-very-long-parent-name-very-l-38ce86992a27",
            "A long prefix is cut to 50 characters plus -.",
            id="LongParentTruncated",
        ),
        pytest.param(
            "very-long-parent-name-without-ending-hyphen" * 2,
            UID,
            "database",
            "very-long-parent-name-without-ending-hyphenvery-lo-38ce86992a27",
            "A long prefix without - is cut and given one.",
            id="LongParentWithoutHyphenTruncated",
        ),
        pytest.param(
            "parent-xr-",
            UID,
            "test-resource-with-a-super-duper-really-long-name-to-test-compaction",
            "parent-xr-e5ac98dc40a2",
            "The composer test's vector (ResourceReferencesWithoutObservedResources).",
            id="ComposerLongResourceName",
        ),
    ],
)
def test_TestChildName(parent: str, uid: str, child: str, want: str, reason: str) -> None:
    got = _naming.child_name(parent, uid, child)
    assert got == want, reason
    assert len(got) <= 63, "a child name always fits 63 characters"


@pytest.mark.parametrize(
    ("name", "api_version", "kind", "want", "reason"),
    [
        pytest.param("cool-name", "v1", "ConfigMap", True, "Lowercase with hyphens is valid.", id="Simple"),
        pytest.param("a.b.c", "v1", "ConfigMap", True, "Dots separate subdomain labels.", id="Dotted"),
        pytest.param("1abc", "v1", "ConfigMap", True, "A digit may start a name.", id="LeadingDigit"),
        pytest.param("", "v1", "ConfigMap", False, "An empty name is invalid.", id="Empty"),
        pytest.param("Upper", "v1", "ConfigMap", False, "Uppercase is invalid.", id="Uppercase"),
        pytest.param("-lead", "v1", "ConfigMap", False, "A leading hyphen is invalid.", id="LeadingHyphen"),
        pytest.param(
            "trail-", "v1", "ConfigMap", False, "A trailing hyphen is invalid.", id="TrailingHyphen"
        ),
        pytest.param("a_b", "v1", "ConfigMap", False, "Underscores are invalid.", id="Underscore"),
        pytest.param("a" * 253, "v1", "ConfigMap", True, "253 characters is the limit.", id="MaxLength"),
        pytest.param("a" * 254, "v1", "ConfigMap", False, "254 characters is too long.", id="TooLong"),
        pytest.param(
            "a..b", "v1", "ConfigMap", False, "An empty label between dots is invalid.", id="DoubleDot"
        ),
        pytest.param(
            "system:admin", "v1", "ConfigMap", False, "Colons are invalid for most kinds.", id="ColonNonRBAC"
        ),
        pytest.param(
            "system:admin",
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            True,
            "RBAC ClusterRoles allow colons.",
            id="ColonClusterRole",
        ),
        pytest.param(
            "system:r",
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
            True,
            "RBAC RoleBindings allow colons.",
            id="ColonRoleBinding",
        ),
        pytest.param(
            "a:b",
            "example.org/v1",
            "Role",
            False,
            "Only the RBAC group's Role allows colons.",
            id="ColonOtherGroupRole",
        ),
        pytest.param(
            "a:B",
            "rbac.authorization.k8s.io/v1",
            "Role",
            False,
            "Uppercase stays invalid for RBAC.",
            id="RBACUppercase",
        ),
    ],
)
def test_TestValidateNameChars(name: str, api_version: str, kind: str, want: bool, reason: str) -> None:
    assert _naming.valid_name(name, api_version, kind) is want, reason


def test_random_name_uses_prefix_and_five_characters() -> None:
    name = _naming.random_name("cool-", random.Random(1))
    assert name.startswith("cool-") and len(name) == len("cool-") + 5, (
        "apiserver-style names add 5 characters"
    )
