"""The envtest fixtures: a real, authenticated API server, stopped cleanly, and CI's skip rule."""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from crossfn.controller import envtest as envtest_module

HERE = Path(__file__).parent


def _get(env: envtest_module.Environment, path: str, token: str) -> tuple[int, bytes]:
    context = ssl.create_default_context(cadata=env.ca_pem.decode())
    request = urllib.request.Request(f"{env.url}{path}", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.mark.cluster
@pytest.mark.parametrize(
    ("path", "token", "status"),
    [
        pytest.param("/version", "admin", 200, id="AdminReadsVersion"),
        pytest.param("/api/v1/namespaces", "admin", 200, id="AdminListsNamespaces"),
        pytest.param("/api/v1/namespaces", "wrong-token", 401, id="UnknownTokenIsRejected"),
    ],
)
def test_api_server_authenticates_the_admin_token(
    envtest: envtest_module.Environment, path: str, token: str, status: int
) -> None:
    """The API server is served over TLS with the generated CA and knows only the admin token."""
    got, _ = _get(envtest, path, envtest.token if token == "admin" else token)
    assert got == status, f"GET {path} with {token} token"


@pytest.mark.cluster
def test_kubeconfig_names_the_server_and_the_token(envtest: envtest_module.Environment) -> None:
    """The kubeconfig written is what clients (ours and kubectl) read: server, CA, token."""
    config = json.loads(Path(envtest.kubeconfig).read_text())
    assert config["clusters"][0]["cluster"]["server"] == envtest.url
    assert config["users"][0]["user"]["token"] == envtest.token
    assert config["current-context"] == "envtest"


@pytest.mark.cluster
@pytest.mark.slow
def test_stop_kills_its_own_processes_and_removes_its_directory() -> None:
    """A second environment stops without leaving a process or a file behind."""
    env = envtest_module.Environment()
    env.start()
    pids = [p.popen.pid for p in (env._etcd, env._apiserver) if p is not None]
    directory = env.directory
    env.stop()
    assert len(pids) == 2
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists(), f"process {pid} survived stop()"
    assert not directory.exists()


@pytest.mark.cluster
def test_controller_manager_runs(controller_manager: envtest_module.Environment) -> None:
    """kube-controller-manager starts against the environment's kubeconfig and stays up."""
    process = controller_manager._controller_manager
    assert process is not None
    assert process.alive(), process.tail()


def test_missing_assets_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting without KUBEBUILDER_ASSETS names the variable instead of failing obscurely."""
    monkeypatch.delenv(envtest_module.ASSETS_VARIABLE, raising=False)
    with pytest.raises(envtest_module.EnvtestError, match="KUBEBUILDER_ASSETS is not set"):
        envtest_module.Environment()


@pytest.mark.parametrize(
    ("ci", "exit_code", "expect"),
    [
        pytest.param(
            "",
            0,
            "set KUBEBUILDER_ASSETS to a directory holding etcd and kube-apiserver",
            id="SkipsWithOneLineOutsideCI",
        ),
        pytest.param("true", 1, "cluster test skipped while CI=true", id="FailsInCI"),
    ],
)
def test_cluster_tests_without_binaries(tmp_path: Path, ci: str, exit_code: int, expect: str) -> None:
    """Without binaries a cluster test skips saying what to set; with CI=true the skip fails the run."""
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    cluster: needs an API server\n")
    (tmp_path / "test_needs_cluster.py").write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.mark.cluster
            def test_needs_cluster(envtest):
                pass
            """
        )
    )
    environ = {k: v for k, v in os.environ.items() if k not in ("KUBEBUILDER_ASSETS", "CI")}
    if ci:
        environ["CI"] = ci
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == exit_code, result.stdout + result.stderr
    assert expect in result.stdout, result.stdout
