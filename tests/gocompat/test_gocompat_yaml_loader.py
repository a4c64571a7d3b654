"""The one YAML loader render, validate and test share reads values as Kubernetes' Go tools do."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from crossfn.gocompat import yaml_loader


@pytest.mark.parametrize(
    ("reason", "text", "want"),
    [
        pytest.param("Kubernetes keeps timestamps as strings.", "2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z", id="Timestamp"),
        pytest.param("A date is a string too.", "2024-01-01", "2024-01-01", id="Date"),
        pytest.param("go-yaml reads an exponent without a dot as a number.", "1e3", 1000.0, id="ExponentNoDot"),
        pytest.param("Negative exponents as well.", "5e-324", 5e-324, id="TinyExponent"),
        pytest.param("PyYAML's own floats still work.", "1.5e3", 1500.0, id="ExponentWithDot"),
        pytest.param("Plain integers stay integers.", "42", 42, id="Integer"),
        pytest.param("A quoted number is a string.", '"1e3"', "1e3", id="QuotedNumber"),
        pytest.param("A word with an e is a string.", "e3", "e3", id="NotANumber"),
    ],
)
def test_loader_reads_values_as_go_does(reason: str, text: str, want: Any) -> None:
    got = yaml.load(f"v: {text}", Loader=yaml_loader.Loader)["v"]  # a SafeLoader
    assert (type(got), got) == (type(want), want), reason
