"""Where the corpus's repositories show what ``crossplane render`` printed, crossfn prints it byte for byte.

Each case runs the command the README (or docs page) shows, as shipped (the
Functions less the ``Development`` runtime annotation, ``corpus`` finds them),
with ``--classic``: every one was printed by a ``crossplane render`` before
today's ``crossplane render xr``. The printed text is the corpus's own file
(``*expected-output*``) or the README's block at the corpus's commit, kept in
``printed/``. Where an older Crossplane printed it, the one edit that Crossplane
release explains is applied to crossfn's output, and named.

What the corpus's READMEs print that is not compared here, and why:

* ``fn-sequencer/example/README.md``'s first block, ``fn-status-transformer`` and
  ``fn-extra-resources``' example READMEs: the function template's leftover output
  (``I was run with input "Hello world"!``), not these examples'.
* ``fn-cel-filter/example/README.md``: printed before the example pinned
  function-patch-and-transform v0.4.0 or later (the base's name was then reset to
  ``generateName``); ``tests/functions/test_builtins_corpus.py`` compares what still holds.
* ``fn-environment-configs/examples/*/README.md``: their context, byte for byte,
  in ``tests/functions/test_builtins_corpus.py``; the XR needs function-go-templating.
* ``fn-kcl``'s READMEs: ``tests/functions/kcl/test_kcl_corpus.py``.
* ``fn-auto-ready``'s and the other ``fn-go-templating`` examples' READMEs print no output.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

import corpus
from crossfn import cli
from crossfn.render import output

HERE = Path(__file__).parent
PRINTED = HERE / "printed"


def _as_printed(path: Path) -> str:
    """Upstream's printed output without the corpus's provenance comment."""
    return "".join(
        line for line in path.read_text().splitlines(keepends=True) if not line.startswith("# extracted")
    )


def _without_xr_status(text: str) -> str:
    """Crossplane v1.14's ``crossplane beta render`` printed the XR without the Ready condition v1.15 added."""
    head, sep, rest = text.partition("\n---\n")
    lines = (head + "\n").splitlines(keepends=True)
    if "status:\n" in lines:
        lines = lines[: lines.index("status:\n")]
    return "".join(lines) + sep.lstrip("\n") + rest


def _context_kind_lost(text: str) -> str:
    """function-go-templating's environment README ends its block on the context's last field: the code
    fence's closing backticks took the place of the ``kind: Context`` line that follows it."""
    assert text.endswith("kind: Context\n")
    return text.removesuffix("kind: Context\n")


def _owner_references_elided(text: str) -> str:
    """function-patch-and-transform's README elided the owner reference by hand."""
    start = text.index("  ownerReferences:\n")
    end = text.index("spec:\n", start)
    return text[:start] + "  ownerReferences:\n    # Omitted for brevity\n" + text[end:]


@dataclasses.dataclass(frozen=True)
class Printed:
    composition: str
    """The Composition's file in the corpus."""
    printed: Path
    """What upstream printed."""
    flags: tuple[str, ...] = ()
    """The command's flags besides the three files (paths relative to the Composition's directory)."""
    edits: tuple[Callable[[str], str], ...] = ()
    """What the older Crossplane that printed it did differently, applied to crossfn's output."""
    setup: str = ""
    """The flag that gives the resources of the Composition's setup (``corpus`` finds them: the README's
    file, EnvironmentConfigs at both versions the API server serves), if the command gives them."""


CASES = [
    pytest.param(
        Printed(
            "crossplane-docs/content/master/composition/compositions-md-render/composition.yaml",
            corpus.root()
            / "crossplane-docs/content/master/composition/compositions-md-render/expected-output.yaml"
            if corpus.available()
            else Path(),
            edits=(_without_xr_status,),
        ),
        id="CrossplaneDocsRender",
    ),
    pytest.param(
        Printed(
            "fn-patch-and-transform/example/composition.yaml",
            corpus.root() / "fn-patch-and-transform/example/README-expected-output.yaml"
            if corpus.available()
            else Path(),
            edits=(_without_xr_status, _owner_references_elided),
        ),
        id="PatchAndTransformReadme",
    ),
    pytest.param(
        Printed(
            "fn-patch-and-transform/example/multistep/composition.yaml",
            PRINTED / "fn-patch-and-transform" / "example-multistep-README.yaml",
            ("-r",),
        ),
        id="PatchAndTransformMultistepReadme",
    ),
    pytest.param(
        Printed(
            "fn-go-templating/example/environment/composition.yaml",
            PRINTED / "fn-go-templating" / "example-environment-README.yaml",
            ("--include-context",),
            edits=(_context_kind_lost,),
            setup="--extra-resources",
        ),
        id="GoTemplatingEnvironmentReadme",
    ),
    pytest.param(
        Printed(
            "fn-sequencer/example/composition-regex.yaml",
            PRINTED / "fn-sequencer" / "example-README-regex.yaml",
            ("-r", "-o", "observed-regex.yaml"),
        ),
        id="SequencerRegexReadme",
    ),
    pytest.param(
        Printed(
            "fn-sequencer/example/composition-with-deletion-sequencing.yaml",
            PRINTED / "fn-sequencer" / "example-README-deletion-sequencing.yaml",
            ("-r", "-o", "observed-deletion-sequencing.yaml"),
        ),
        id="SequencerDeletionSequencingReadme",
    ),
]


def _example(path: str) -> corpus.Example:
    repository = path.split("/", 1)[0]
    return next(e for e in corpus.examples(repository) if str(e.path.relative_to(corpus.root())) == path)


@pytest.mark.parametrize("case", CASES)
def test_prints_what_upstream_printed(
    case: Printed, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The XRs of these examples are the repository's own (``xr.yaml`` beside the Composition).

    function-go-templating's environment example keeps its EnvironmentConfigs at ``v1alpha1`` while
    function-environment-configs v0.3.0 and later ask for ``v1beta1``: given the file alone, neither
    upstream's render nor crossfn finds them; a cluster serves them at both, as ``corpus`` gives them.
    """
    example = _example(case.composition)
    assert example.xr_from.startswith("xr "), example.xr_from
    functions = tmp_path / "functions.yaml"
    functions.write_text(output.yaml_stream(example.functions))
    monkeypatch.chdir(example.path.parent)
    xr = example.xr_from.partition(" ")[2].rpartition("/")[2]
    flags = list(case.flags)
    if case.setup:
        resources = tmp_path / "resources.yaml"
        resources.write_text(output.yaml_stream(example.required))
        flags += [case.setup, str(resources)]
    code = cli.main(["render", xr, example.path.name, str(functions), *flags, "--classic"])
    out, err = capsys.readouterr()
    assert code == 0, err
    for edit in case.edits:
        out = edit(out)
    assert out == _as_printed(case.printed)
