"""semver and semverCompare: Sprig's semver_test.go, Masterminds/semver's version and constraint
tables, and what differs between the library releases function-go-templating shipped with."""

from __future__ import annotations

import itertools

import pytest
from semvercases import CONSTRAINT_CHECK, CONSTRAINTS_CHECK
from sprigcases import call, func_map, show

from crossfn import errors
from crossfn.gocompat import fmt, gofunc, json, sprig, values
from crossfn.gocompat.sprig import _semver

LIBRARIES = sprig.SEMVER_VERSIONS


def test_sprig_semver_cases() -> None:
    """TestSemverCompare and TestSemver."""
    assert call("semverCompare", "1.2.3", "1.2.3") is True
    assert call("semverCompare", "^1.2.0", "1.2.3") is True
    assert call("semverCompare", "^1.2.0", "2.2.3") is False
    beta = call("semver", "1.2.3-beta.1+c0ff33")
    assert beta.go_methods()["Prerelease"]() == "beta.1"
    assert beta.go_methods()["Major"]() == 1
    assert values.type_name(beta.go_methods()["Major"]()) == "uint64"
    compare = call("semver", "1.2.3").go_methods()["Compare"]
    assert compare(call("semver", "1.2.3")) == 0
    assert call("semver", "1.3.3").go_methods()["Compare"](call("semver", "1.2.3")) == 1
    assert compare(call("semver", "1.4.3")) == -1


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize(("constraint", "version", "want"), CONSTRAINT_CHECK)
def test_constraint_check(library: str, constraint: str, version: str, want: bool) -> None:
    """Masterminds' TestConstraintCheck, the same at every release for one constraint. The table parses
    each constraint alone, where "" means any version; NewConstraint, which semverCompare calls, rejects it."""
    compare = func_map(semver=library)["semverCompare"]
    if constraint == "":
        with pytest.raises(errors.GoError) as raised:
            compare(constraint, version)
        assert str(raised.value) == "improper constraint: "
        return
    assert compare(constraint, version) is want


_FROM_340 = {
    (">= 1.0.0  <= 2.0.0-beta", "1.0.1-beta"),
    (">= 1.0.0  <= 2.0.0-beta || > 3", "1.0.1-beta"),
    (">= 1.0.0  <= 2.0.0-beta != 1.0.1 || > 3", "1.0.1-beta"),
    (">= 1.0.0-0  <= 2.0.0", "1.0.1-beta"),
}
_FROM_330 = {("1.0.0 - 2.0.0 <=2.0.0", "1.5.0")}


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize(("constraint", "version", "want"), CONSTRAINTS_CHECK)
def test_constraints_check(library: str, constraint: str, version: str, want: bool) -> None:
    """Masterminds' TestConstraintsCheck (v3.4.0's table): a prerelease in an AND group opens the group
    to prereleases only from 3.4.0; a range followed by another constraint parses from 3.3.0."""
    funcs = func_map(semver=library)
    if (constraint, version) in _FROM_340 and library < "v3.4.0":
        assert funcs["semverCompare"](constraint, version) is False
        return
    if (constraint, version) in _FROM_330 and library < "v3.3.0":
        with pytest.raises(errors.GoError):
            funcs["semverCompare"](constraint, version)
        return
    assert funcs["semverCompare"](constraint, version) is want


VERSIONS_LOOSE = [
    ("1.2.3", True), ("1.2.3-alpha.01", False), ("1.2.3+test.01", True), ("1.2.3-alpha.-1", True),
    ("v1.2.3", True), ("1.0", True), ("v1", True), ("1.2.beta", False), ("foo", False),
    ("1.2-5", True), ("1.2-beta.5", True), ("\n1.2", False), ("1.2.0-x.Y.0+metadata", True),
    ("1.2.3-rc1-with-hypen", True), ("1.2.3.4", False), ("1.2.2147483648", True), ("12.3.4.1234", False),
    ("20221209-update-renovatejson-v4", True), ("1.1.2+.123", False), ("1.0.0-alpha_beta", False),
    ("1.0.0-alpha..", False), ("9.8.7+meta+meta", False), ("1.2.31----RC-SNAPSHOT.12.09.1--.12+788", False),
]  # fmt: skip
LEADING_ZEROS = ["01.1.1", "1.01.1", "1.1.01"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_new_version(library: str) -> None:
    """Masterminds' TestNewVersion: which versions parse; 3.3.1 alone rejects leading zeros."""
    parse = func_map(semver=library)["semver"]
    for text, ok in VERSIONS_LOOSE:
        if ok:
            parse(text)
        else:
            with pytest.raises(errors.GoError):
                parse(text)
    for text in LEADING_ZEROS:
        if library == "v3.3.1":
            with pytest.raises(errors.GoError):
                parse(text)
        else:
            assert show(parse(text)) == "1.1.1"


ERRORS = [
    pytest.param("semver", ("foo",), "Invalid Semantic Version", "invalid semantic version", id="Invalid"),
    pytest.param(
        "semver",
        ("1.2.3-01",),
        "Version segment starts with 0",
        "version segment starts with 0",
        id="LeadingZero",
    ),
    pytest.param(
        "semver",
        ("99999999999999999999",),
        'Error parsing version segment: strconv.ParseUint: parsing "99999999999999999999": value out of range',
        'error parsing version segment: strconv.ParseUint: parsing "99999999999999999999": value out of range',
        id="Overflow",
    ),
    pytest.param(
        "semverCompare",
        ("foo", "1.2.3"),
        "improper constraint: foo",
        "improper constraint: foo",
        id="Constraint",
    ),
    pytest.param(
        "semverCompare",
        ("^1", "bar"),
        "Invalid Semantic Version",
        "invalid semantic version",
        id="CompareVersion",
    ),
]


@pytest.mark.parametrize(("name", "args", "v320", "v340"), ERRORS)
def test_error_texts(name: str, args: tuple[str, ...], v320: str, v340: str) -> None:
    """3.4.0 lower-cased the library's error texts."""
    for library, want in (("v3.2.0", v320), ("v3.4.0", v340)):
        with pytest.raises(errors.GoError) as raised:
            func_map(semver=library)[name](*args)
        assert str(raised.value) == want


def test_prerelease_not_equal_differs() -> None:
    """From 3.4.0, != refuses prereleases too (constraints_test.go's added row)."""
    assert func_map(semver="v3.3.0")["semverCompare"]("!=4.1.0", "5.1.0-alpha.1") is True
    assert func_map(semver="v3.4.0")["semverCompare"]("!=4.1.0", "5.1.0-alpha.1") is False


def test_default_library_per_sprig() -> None:
    """Sprig v3.2.3 pins semver 3.2.0, v3.3.0 pins 3.3.0."""
    assert call("semver", "1.0.0", version="v3.2.3").library == "v3.2.0"
    assert call("semver", "1.0.0", version="v3.3.0").library == "v3.3.0"
    with pytest.raises(ValueError, match=r"unknown semver version"):
        sprig.txt_func_map("v3.3.0", semver="v9.9.9")


def test_version_methods() -> None:
    """Masterminds' TestInc, TestSetPrerelease and the comparison methods; a value has no pointer methods."""
    v = call("semver", "v1.2.3-beta+meta")
    m = v.go_methods()
    assert show(m["IncPatch"]()) == "1.2.3"
    assert m["IncPatch"]().go_methods()["String"]() == "1.2.3"
    assert show(m["IncMinor"]()) == "1.3.0"
    assert show(m["IncMajor"]()) == "2.0.0"
    assert m["IncMajor"]().original == "v2.0.0"
    assert values.type_name(m["IncMajor"]()) == "semver.Version"
    assert "Compare" not in m["IncMajor"]().go_methods()
    assert show(m["SetPrerelease"]("rc.1")) == "1.2.3-rc.1+meta"
    with pytest.raises(errors.GoError) as raised:
        m["SetPrerelease"]("bad_one")
    assert str(raised.value) == "Invalid Prerelease string"
    assert show(m["SetMetadata"]("")) == "1.2.3-beta"
    assert m["Original"]() == "v1.2.3-beta+meta"
    assert m["LessThan"](call("semver", "1.2.3")) is True
    assert m["GreaterThanEqual"](call("semver", "1.2.3-alpha")) is True
    assert "GreaterThanEqual" not in call("semver", "1.0.0", version="v3.2.3").go_methods()
    assert m["Equal"](call("semver", "1.2.3-beta+other")) is True
    assert m["Equal"](None) is False
    with pytest.raises(gofunc.Panic):
        call("semver", "1.0.0", version="v3.2.3").go_methods()["Equal"](None)


def test_version_printing() -> None:
    """%v is String(); JSON is the string; DeepEqual compares the fields through the pointer."""
    v = call("semver", "v1.2.3")
    assert fmt.sprint(v) == "1.2.3"
    assert fmt.sprintf("%T", v) == "*semver.Version"
    assert json.marshal([v]) == '["1.2.3"]'
    assert call("deepEqual", v, call("semver", "v1.2.3")) is True
    assert call("deepEqual", v, call("semver", "1.2.3")) is False


def test_comparisons_of_prerelease_parts() -> None:
    """comparePrePart: numbers below words, numbers compared as numbers, shorter below longer."""
    order = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0",
    ]
    parsed = [_semver.new_version(text, "v3.3.0") for text in order]
    for lower, higher in itertools.pairwise(parsed):
        assert lower.compare(higher) == -1
        assert higher.compare(lower) == 1
