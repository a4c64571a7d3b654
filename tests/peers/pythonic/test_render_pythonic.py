"""function-pythonic, a function nobody here wrote, under ``crossfn render``.

Its pinned PyPI release (``conftest.py``) runs as a gRPC server of its own:
as shipped (no runtime annotation: ``crossfn function install`` made the
install render finds), under the ``Process`` and ``Development`` runtimes, for
the Crossplane docs' two function-pythonic Compositions and for pythonic's own
examples. Outputs are compared with what upstream shows: the README's render
output, and pythonic's own renderer (``function-pythonic render``, from the
same release) on its own examples.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import corpus_root

pytestmark = pytest.mark.peer

DOCS = corpus_root() / "crossplane-docs" / "content" / "master" / "manifests"
GET_STARTED = DOCS / "get-started" / "composition"
CONNECTION_DETAILS = DOCS / "guides" / "connection-details-composition"

_SHIPPED_NOTE = (
    "crossfn: note: running function-pythonic v0.3.0 as the PyPI package crossplane-function-pythonic 0.3.0 "
    "installed in {install} (crossfn function install; Python {python}), in a process of its own\n"
)


def _render(
    pythonic: dict[str, str], *args: str | Path, cwd: Path | None = None, functions_dir: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CROSSFN_FUNCTIONS_DIR": functions_dir or pythonic["functions_dir"]}
    return subprocess.run(
        [sys.executable, "-m", "crossfn", "render", *map(str, args)],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=120, check=False,
    )  # fmt: skip


def _docs(out: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert out.returncode == 0, out.stderr
    return [d for d in yaml.safe_load_all(out.stdout) if d is not None]


def _by_kind(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {d["kind"]: d for d in docs[1:] if d["kind"] != "Result"}


def _conditions(obj: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {
        c["type"]: (c["status"], c.get("reason", ""), c.get("message", ""))
        for c in (obj.get("status") or {}).get("conditions") or []
    }


def _functions_file(tmp: Path, package: str, annotations: dict[str, str] | None = None) -> Path:
    fn: dict[str, Any] = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {"name": "function-pythonic", **({"annotations": annotations} if annotations else {})},
        "spec": {"package": package},
    }
    path = tmp / "functions.yaml"
    path.write_text(yaml.safe_dump(fn))
    return path


def test_get_started_renders_as_shipped_and_composes_what_function_python_composes(
    pythonic: dict[str, str],
) -> None:
    """The docs' get-started App, as shipped: pythonic runs from the install, and composes the Deployment
    and Service the docs' function-python Composition of the same App composes (crossfn's built-in)."""
    app = GET_STARTED / "app.yaml"
    out = _render(pythonic, app, GET_STARTED / "composition-pythonic.yaml", GET_STARTED / "fn-pythonic.yaml")
    assert out.stderr == _SHIPPED_NOTE.format(**pythonic), "one note says what runs, and nothing else is said"
    got = _docs(out)
    python = _docs(
        _render(pythonic, app, GET_STARTED / "composition-python.yaml", GET_STARTED / "fn-python.yaml")
    )
    assert _by_kind(got) == _by_kind(python), "the same Deployment and Service, byte for byte"
    assert _conditions(got[0])["ResourcesComposed"] == ("True", "AllComposed", "All resources are composed")
    assert _conditions(got[0])["Ready"] == ("False", "Creating", "Unready resources: deployment, service")


def test_get_started_observed_becomes_ready_with_status(pythonic: dict[str, str], tmp_path: Path) -> None:
    """With the Deployment and Service observed, pythonic's auto-ready and status lines take effect."""
    first = _docs(
        _render(pythonic, GET_STARTED / "app.yaml", GET_STARTED / "composition-pythonic.yaml",
                GET_STARTED / "fn-pythonic.yaml")
    )  # fmt: skip
    deployment, service = (dict(first[i]) for i in (1, 2))
    deployment["status"] = {
        "availableReplicas": 2,
        "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}],
        "observedGeneration": 1,
        "readyReplicas": 2,
        "replicas": 2,
        "updatedReplicas": 2,
    }
    deployment["metadata"] = {**deployment["metadata"], "generation": 1}
    service["spec"] = {**service["spec"], "clusterIP": "10.96.0.10"}
    observed = tmp_path / "observed.yaml"
    observed.write_text(yaml.safe_dump_all([deployment, service]))
    got = _docs(
        _render(pythonic, GET_STARTED / "app.yaml", GET_STARTED / "composition-pythonic.yaml",
                GET_STARTED / "fn-pythonic.yaml", "-o", observed)
    )  # fmt: skip
    xr = got[0]
    assert {k: v for k, v in xr["status"].items() if k != "conditions"} == {
        "replicas": 2,
        "address": "10.96.0.10",
    }
    assert _conditions(xr)["Ready"] == ("True", "Available", "")


@pytest.mark.parametrize(
    ("reason", "annotations"),
    [
        pytest.param(
            "The Process runtime, with the install's own command.", {"runtime": "Process"}, id="Process"
        ),
        pytest.param(
            "The Development runtime, at a server started here as the image starts it.",
            {"runtime": "Development"},
            id="Development",
        ),
    ],
)
def test_annotated_runtimes_render_as_shipped_does(
    pythonic: dict[str, str], tmp_path: Path, reason: str, annotations: dict[str, str]
) -> None:
    args = (GET_STARTED / "app.yaml", GET_STARTED / "composition-pythonic.yaml")
    shipped = _render(pythonic, *args, GET_STARTED / "fn-pythonic.yaml")
    command = [str(Path(pythonic["install"]) / "bin" / "function-pythonic"), "grpc"]
    if annotations["runtime"] == "Process":
        fns = _functions_file(tmp_path, pythonic["package"], {
            "render.crossplane.io/runtime": "Process",
            "render.crossfn.io/runtime-process-command": shlex.join(command),
        })  # fmt: skip
        out = _render(pythonic, *args, fns)
    else:
        port = _free_port()
        server = subprocess.Popen(
            [*command, "--insecure", f"--address=127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            fns = _functions_file(tmp_path, pythonic["package"], {
                "render.crossplane.io/runtime": "Development",
                "render.crossplane.io/runtime-development-target": f"127.0.0.1:{port}",
            })  # fmt: skip
            _wait_listening(port, server)
            out = _render(pythonic, *args, fns)
        finally:
            server.terminate()
            server.wait(timeout=20)
    assert out.returncode == 0, f"{reason} {out.stderr}"
    assert out.stdout == shipped.stdout, reason
    assert out.stderr == "", f"{reason} An annotated runtime is the user's choice: no note."


def test_connection_details_guide_composes_after_its_dependencies(
    pythonic: dict[str, str], tmp_path: Path
) -> None:
    """The docs' connection-details guide: the access keys wait for the User's id (pythonic's dependency
    handling), then are composed with it."""
    args = (CONNECTION_DETAILS / "my-keys.yaml", CONNECTION_DETAILS / "composition-pythonic.yaml")
    out = _render(pythonic, *args, CONNECTION_DETAILS / "fn-pythonic.yaml")
    assert out.stderr == _SHIPPED_NOTE.format(**pythonic)
    first = _docs(out)
    assert [d["kind"] for d in first] == ["UserAccessKey", "User"], "only the User: the keys need its id"
    assert _conditions(first[0])["ResourcesComposed"] == (
        "False",
        "DesiredUnknowns",
        "Desired resources with unknowns: access-key-0,access-key-1",
    )
    user = dict(first[1])
    user["status"] = {"atProvider": {"id": "AIDAEXAMPLEUSERID"}}
    observed = tmp_path / "observed.yaml"
    observed.write_text(yaml.safe_dump(user))
    second = _docs(_render(pythonic, *args, CONNECTION_DETAILS / "fn-pythonic.yaml", "-o", observed))
    keys = {
        d["metadata"]["annotations"]["crossplane.io/composition-resource-name"]: d["spec"]
        for d in second
        if d["kind"] == "AccessKey"
    }
    assert keys == {
        f"access-key-{ix}": {
            "forProvider": {"user": "AIDAEXAMPLEUSERID"},
            "writeConnectionSecretToRef": {"name": f"my-keys-accesskey-{ix}"},
        }
        for ix in range(2)
    }
    assert _conditions(second[0])["ResourcesComposed"] == (
        "True",
        "AllComposed",
        "All resources are composed",
    )


_README_XR = """apiVersion: pythonic.fn.crossplane.io/v1alpha1
kind: Hello
metadata:
  name: world
spec:
  who: World
"""

_README_COMPOSITION = """apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: hellos.pythonic.crossplane.io
spec:
  compositeTypeRef:
    apiVersion: pythonic.fn.crossplane.io/v1alpha1
    kind: Hello
  mode: Pipeline
  pipeline:
  - step: pythonic
    functionRef:
      name: function-pythonic
    input:
      apiVersion: pythonic.fn.crossplane.io/v1alpha1
      kind: Composite
      composite: |
        class GreetingComposite(BaseComposite):
          def compose(self):
            self.status.greeting = f"Hello, {self.spec.who}!"
"""


def test_readme_quick_start_renders_what_the_readme_shows(pythonic: dict[str, str], tmp_path: Path) -> None:
    """The README's quick start (v0.3.0) prints status.greeting "Hello, World!" with Ready Available and
    ResourcesComposed AllComposed. (Its compositeTypeRef names the XR's apiVersion, as crossfn checks.)"""
    (tmp_path / "xr.yaml").write_text(_README_XR)
    (tmp_path / "composition.yaml").write_text(_README_COMPOSITION)
    fns = _functions_file(tmp_path, "xpkg.upbound.io/crossplane-contrib/function-pythonic:v0.3.0")
    got = _docs(_render(pythonic, tmp_path / "xr.yaml", tmp_path / "composition.yaml", fns))
    assert len(got) == 1
    assert got[0]["status"]["greeting"] == "Hello, World!"
    conditions = _conditions(got[0])
    assert conditions["Ready"] == ("True", "Available", "")
    assert conditions["ResourcesComposed"] == ("True", "AllComposed", "All resources are composed")


EXAMPLES = [
    pytest.param("get-started-app", (), id="get-started-app"),
    pytest.param(
        "function-go-templating/functions/getCompositeResource", (), id="go-templating-getCompositeResource"
    ),
    pytest.param("function-go-templating/conditions", (), id="go-templating-conditions"),
    pytest.param("function-go-templating/functions/include", (), id="go-templating-include"),
    pytest.param("function-go-templating/functions/toYaml", (), id="go-templating-toYaml"),
    pytest.param("function-go-templating/functions/fromYaml", (), id="go-templating-fromYaml"),
    pytest.param(
        "function-go-templating/functions/getResourceCondition",
        (("--observed-resources", "-o"), "observed.yaml"),
        id="go-templating-getResourceCondition",
    ),
    pytest.param(
        "function-go-templating/required-resources",
        (("--required-resources", "-e"), "required-resources.yaml"),
        id="go-templating-required-resources",
    ),
    pytest.param(
        "function-go-templating/context",
        (("--required-resources", "-e"), "environmentConfigs.yaml"),
        id="go-templating-context",
    ),
]


def _normalised(
    docs: list[dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, tuple[str, str, str]], list[Any]]:
    """What both renderers decide alike: the XR's status and conditions, and the composed resources.

    Left out: what each renderer adds on its own. crossplane render (and crossfn) names composed
    resources and the XR's uid, lists ``spec.crossplane.resourceRefs``, adds the Responsive and
    Synced conditions and names at most three unready resources in Ready's message; pythonic's
    renderer writes an empty uid and names them all.
    """
    xr = docs[0]
    status = {k: v for k, v in (xr.get("status") or {}).items() if k != "conditions"}
    conditions = {t: c for t, c in _conditions(xr).items() if t not in ("Responsive", "Synced")}
    if "Ready" in conditions:
        conditions["Ready"] = (*conditions["Ready"][:2], "")
    composed = []
    for d in docs[1:]:
        if d["kind"] == "Result":
            continue
        meta = {k: v for k, v in d["metadata"].items() if k != "name"}
        meta["ownerReferences"] = [{**o, "uid": ""} for o in meta.get("ownerReferences", [])]
        composed.append({**d, "metadata": meta})
    return status, conditions, sorted(composed, key=lambda d: str(d["metadata"]["annotations"]))


@pytest.mark.parametrize(("example", "flag"), EXAMPLES)
def test_examples_render_as_pythonics_own_renderer_does(
    pythonic: dict[str, str], tmp_path: Path, example: str, flag: tuple[Any, ...]
) -> None:
    """pythonic's examples, as shipped (their Development annotation taken away), against the output
    of ``function-pythonic render`` of the same release on the same files: the same decisions.

    Not compared: ``inline`` picks a label with ``random.choice``; ``getComposedResource``'s observed
    resource has no ``metadata.name``: pythonic's renderer hands it to the function as it is, crossfn's
    render (whose observed resources are objects of an in-memory cluster, as in Crossplane, so named)
    does not observe it, and pythonic then treats the resource as not yet created.
    """
    where = Path(pythonic["examples"]) / example
    package = yaml.safe_load((where / "functions.yaml").read_text())["spec"]["package"]
    fns = _functions_file(tmp_path, package)
    extra_up: list[str] = []
    extra_ours: list[str] = []
    if flag:
        (up_flag, our_flag), name = flag
        extra_up, extra_ours = [up_flag, str(where / name)], [our_flag, str(where / name)]
    upstream = subprocess.run(
        [str(Path(pythonic["install"]) / "bin" / "function-pythonic"), "render", *extra_up,
         "xr.yaml", "composition.yaml"],
        capture_output=True, text=True, cwd=where, timeout=120, check=False,
    )  # fmt: skip
    assert upstream.returncode == 0, upstream.stderr
    theirs = [d for d in yaml.safe_load_all(upstream.stdout.partition("\n---\n")[2]) if d is not None]
    ours = _docs(_render(pythonic, *extra_ours, where / "xr.yaml", where / "composition.yaml", fns))
    assert _normalised(ours) == _normalised(theirs)


def test_pythonics_own_examples_name_a_package_that_runs_as_shipped(pythonic: dict[str, str]) -> None:
    """Every functions.yaml of the examples names the pinned release on xpkg.upbound.io: the install
    found for it is the one the docs' xpkg.crossplane.io reference finds."""
    packages = {
        yaml.safe_load(p.read_text())["spec"]["package"]
        for p in Path(pythonic["examples"]).rglob("functions.yaml")
    }
    assert packages == {"xpkg.upbound.io/crossplane-contrib/function-pythonic:v0.3.0"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "function-pythonic exited before serving"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"function-pythonic did not listen on {port}")
