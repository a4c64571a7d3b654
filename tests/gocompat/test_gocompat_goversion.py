"""hashicorp/go-version v1.9.0's NewVersion, String and Compare: its version_test.go cases."""

from __future__ import annotations

import pytest

from crossfn import errors
from crossfn.gocompat import goversion

# (text, parses) -- TestNewVersion
PARSES = [
    pytest.param("", False, id="Empty"),
    pytest.param("1.2.3", True, id="ThreeSegments"),
    pytest.param("1.0", True, id="TwoSegments"),
    pytest.param("1", True, id="OneSegment"),
    pytest.param("1.2.beta", False, id="WordAsSegment"),
    pytest.param("1.21.beta", False, id="WordAsSegmentAfterTwoDigits"),
    pytest.param("foo", False, id="NoNumbers"),
    pytest.param("1.2-5", True, id="NumericPrerelease"),
    pytest.param("1.2-beta.5", True, id="DottedPrerelease"),
    pytest.param("\n1.2", False, id="LeadingNewline"),
    pytest.param("1.2.0-x.Y.0+metadata", True, id="PrereleaseAndMetadata"),
    pytest.param("1.2.0-x.Y.0+metadata-width-hyphen", True, id="MetadataWithHyphen"),
    pytest.param("1.2.3-rc1-with-hyphen", True, id="PrereleaseWithHyphens"),
    pytest.param("1.2.3.4", True, id="FourSegments"),
    pytest.param("1.2.0.4-x.Y.0+metadata", True, id="FourSegmentsPrereleaseMetadata"),
    pytest.param("1.2.0-X-1.2.0+metadata~dist", True, id="Tilde"),
    pytest.param("v1.2.3", True, id="VPrefix"),
    pytest.param("foo1.2.3", False, id="WordPrefix"),
    pytest.param("1.7rc2", True, id="PrereleaseWithoutHyphen"),
    pytest.param("v1.7rc2", True, id="VPrefixPrereleaseWithoutHyphen"),
    pytest.param("1.0-", True, id="TrailingHyphen"),
    pytest.param("controller-v0.40.2", False, id="NamedTag"),
    pytest.param("latest", False, id="Latest"),
]


@pytest.mark.parametrize(("text", "parses"), PARSES)
def test_new_version(text: str, parses: bool) -> None:
    if parses:
        assert goversion.new_version(text).original == text
    else:
        with pytest.raises(errors.GoError, match=r"^malformed version: "):
            goversion.new_version(text)


# (text, String()) -- TestVersionString
STRINGS = [
    pytest.param("1.2.3", "1.2.3", id="Plain"),
    pytest.param("1.2-beta", "1.2.0-beta", id="PaddedToThree"),
    pytest.param("1.2.0-x.Y.0", "1.2.0-x.Y.0", id="Prerelease"),
    pytest.param("1.2.0-x.Y.0+metadata", "1.2.0-x.Y.0+metadata", id="Metadata"),
    pytest.param("1.2.0-metadata-1.2.0+metadata~dist", "1.2.0-metadata-1.2.0+metadata~dist", id="Tilde"),
    pytest.param("17.03.0-ce", "17.3.0-ce", id="ZeroPaddedSegment"),
    pytest.param("v1.2.3.4", "1.2.3.4", id="FourSegmentsNoV"),
]


@pytest.mark.parametrize(("text", "want"), STRINGS)
def test_string(text: str, want: str) -> None:
    assert goversion.new_version(text).string() == want


# (a, b, a.Compare(b)) -- TestVersionCompare, TestComparePreReleases and the NewVersion side of
# TestVersionCompare_versionAndSemver
COMPARES = [
    pytest.param("1.2.3", "1.4.5", -1, id="MinorLess"),
    pytest.param("1.2-beta", "1.2-beta", 0, id="SamePrerelease"),
    pytest.param("1.2", "1.1.4", 1, id="MinorGreater"),
    pytest.param("1.2", "1.2-beta", 1, id="ReleaseAbovePrerelease"),
    pytest.param("1.2+foo", "1.2+beta", 0, id="MetadataNeverOrders"),
    pytest.param("v1.2", "v1.2-beta", 1, id="VReleaseAbovePrerelease"),
    pytest.param("v1.2.3.4", "v1.2.3.4", 0, id="FourSegmentsEqual"),
    pytest.param("v1.2.0.0", "v1.2", 0, id="TrailingZerosEqual"),
    pytest.param("v1.2.0.0.1", "v1.2", 1, id="ExtraNonZeroSegmentGreater"),
    pytest.param("v1.2", "v1.2.0.0", 0, id="FewerSegmentsEqual"),
    pytest.param("v1.2", "v1.2.0.0.1", -1, id="FewerSegmentsLess"),
    pytest.param("v1.2.0.0", "v1.2.0.0.1", -1, id="FifthSegmentLess"),
    pytest.param("v1.2.3.0", "v1.2.3.4", -1, id="FourthSegmentLess"),
    pytest.param("1.7rc2", "1.7rc1", 1, id="UnhyphenatedPrereleases"),
    pytest.param("1.7rc2", "1.7", -1, id="UnhyphenatedPrereleaseBelowRelease"),
    pytest.param("1.2.0", "1.2.0-X-1.2.0+metadata~dist", 1, id="ReleaseAboveTildePrerelease"),
    pytest.param("0.0.2", "0.0.2", 0, id="KclModuleVersions"),
    pytest.param("1.0.2alpha", "1.0.2-alpha", 0, id="HyphenOptional"),
    pytest.param("v1.2", "v1.2+meta", 0, id="MetadataAgainstNone"),
    pytest.param("v1.0.3-", "v1.0.3", -1, id="TrailingHyphenIsPrerelease"),
    pytest.param("1.2-beta.2", "1.2-beta.2", 0, id="PrereleaseEqual"),
    pytest.param("1.2-beta.1", "1.2-beta.2", -1, id="PrereleaseNumberLess"),
    pytest.param("1.2-beta.2", "1.2-beta.11", -1, id="PrereleaseNumbersNumerically"),
    pytest.param("3.2-alpha.1", "3.2-alpha", 1, id="LongerPrereleaseGreater"),
    pytest.param("1.2-beta.2", "1.2-beta.1", 1, id="PrereleaseNumberGreater"),
    pytest.param("1.2-beta.11", "1.2-beta.2", 1, id="PrereleaseNumbersNumericallyGreater"),
    pytest.param("1.2-beta", "1.2-beta.3", -1, id="ShorterPrereleaseLess"),
    pytest.param("1.2-alpha", "1.2-beta.3", -1, id="PrereleaseWordsAsStrings"),
    pytest.param("1.2-beta", "1.2-alpha.3", 1, id="PrereleaseWordWinsOverLength"),
    pytest.param("3.0-alpha.3", "3.0-rc.1", -1, id="AlphaBelowRc"),
    pytest.param("3.0-alpha3", "3.0-rc1", -1, id="AlphaBelowRcUndotted"),
    pytest.param("3.0-alpha.1", "3.0-alpha.beta", -1, id="NumberBelowWord"),
    pytest.param("5.4-alpha", "5.4-alpha.beta", 1, id="MissingPartAboveWord"),
    pytest.param("v3.2-rc.1-1-g123", "v3.2-rc.2", 1, id="GitDescribeWordAboveNumber"),
]


@pytest.mark.parametrize(("a", "b", "want"), COMPARES)
def test_compare(a: str, b: str, want: int) -> None:
    assert goversion.new_version(a).compare(goversion.new_version(b)) == want
    assert goversion.new_version(b).compare(goversion.new_version(a)) == -want
