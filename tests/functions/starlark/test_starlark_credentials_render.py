"""A Starlark step's credentials reach the script exactly, through ``crossfn render --function-credentials``.

The Secret holds every byte value under ``key.der`` and UTF-8 text under
``token``; the script copies the key's base64 into a composed Secret and
reports the token's length in characters, which is 8 only when it was read
as UTF-8 text (its bytes number 10).
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
import yaml

from crossfn import cli

HERE = Path(__file__).parent / "testdata" / "credentials"
EXAMPLE = Path(__file__).parents[3] / "examples" / "starlark-robots"


def test_credentials_reach_the_script(capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(EXAMPLE / "xr.yaml"), str(HERE / "composition.yaml"), str(EXAMPLE / "functions.yaml")]
    assert (
        cli.main(["render", *args, "-r", "--classic", "--function-credentials", str(HERE / "secrets.yaml")])
        == 0
    )
    docs = list(yaml.safe_load_all(capsys.readouterr().out))
    (secret,) = [d for d in docs if d.get("kind") == "Secret"]
    assert base64.b64decode(secret["data"]["key.der"]) == bytes(range(256)), "the binary credential is exact"
    results = [d["message"] for d in docs if d.get("kind") == "Result"]
    assert results == ["token length 8"], "the text credential reads as UTF-8 text"
