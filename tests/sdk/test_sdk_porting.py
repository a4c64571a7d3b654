"""Porting a function from the official SDK is an import change.

``testdata/template_function`` is a function shaped like the official template
(crossplane/function-template-python: ``function/fn.py`` with a servicer class,
``function/main.py`` with its click CLI, ``tests/test_fn.py`` with unittest),
whose imports name crossfn. Its own tests pass; turned back to
``crossplane.function`` imports, the very same tests pass under the official
SDK, so the two behave alike for everything the function and its tests use;
and ``main.py``'s CLI serves it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossfn.proto.v1beta1 import run_function_pb2_grpc as fnv1beta1grpc
from crossfn.sdk import resource

FIXTURE = Path(__file__).parent / "testdata" / "template_function"

_TO_OFFICIAL = (
    (re.compile(r"^from crossfn\.sdk import", re.M), "from crossplane.function import"),
    (re.compile(r"^from crossfn\.proto\.", re.M), "from crossplane.function.proto."),
)


def _copy(tmp_path: Path, sdk: str) -> Path:
    """The fixture in ``tmp_path`` (outside this project's pytest configuration), imports for ``sdk``."""
    dest = tmp_path / "fn"
    shutil.copytree(FIXTURE, dest)
    for path in dest.rglob("*.py"):
        text = path.read_text()
        assert "crossplane.function" not in text, f"{path.name}: the fixture imports only crossfn"
        if sdk == "official":
            for pattern, official in _TO_OFFICIAL:
                text = pattern.sub(official, text)
            assert "crossfn" not in text, f"{path.name}: every crossfn import has an official counterpart"
            path.write_text(text)
    return dest


@pytest.mark.slow
@pytest.mark.parametrize(
    "sdk",
    [
        pytest.param("crossfn", id="Crossfn"),
        pytest.param("official", id="OfficialSDK", marks=pytest.mark.peer),
    ],
)
def test_ported_template_passes_its_own_tests(tmp_path: Path, sdk: str) -> None:
    """The fixture's tests pass with crossfn, and with the official SDK once the imports are turned back."""
    project = _copy(tmp_path, sdk)
    plugins = ["-p", "no:cacheprovider"] + (["-p", "no:crossfn"] if sdk == "official" else [])
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *plugins, "tests"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout, run.stdout


def _request(tag: str) -> dict[str, Any]:
    return {
        "meta": {"tag": tag},
        "input": {"version": "v1"},
        "observed": {"composite": {"resource": {"metadata": {"name": "x"}, "spec": {"region": "eu-west-1"}}}},
        "context": {"k": "v"},
    }


def _want(tag: str) -> dict[str, Any]:
    spec = {"forProvider": {"region": "eu-west-1"}}
    return {
        "meta": {"tag": tag, "ttl": "60s"},
        "desired": {
            "resources": {
                "bucket": {
                    "resource": {"apiVersion": "s3.aws.upbound.io/v1", "kind": "Bucket", "spec": spec}
                },
                "replica": {
                    "resource": {
                        "apiVersion": "s3.aws.upbound.io/v1beta2",
                        "kind": "Bucket",
                        "metadata": {"name": resource.child_name("x", "replica", sep="")},
                        "spec": spec,
                    }
                },
            }
        },
        "conditions": [{"type": "BucketReady", "status": "STATUS_CONDITION_UNKNOWN", "reason": "Observed"}],
        "results": [{"severity": "SEVERITY_NORMAL", "message": "I was run with input v1!"}],
        "context": {"k": "v"},
    }


class _Served:
    def __init__(self, proc: subprocess.Popen[str], port: int) -> None:
        self.proc = proc
        self.port = port

    def stop(self) -> tuple[int, list[dict[str, Any]]]:
        """SIGTERM the server; its exit status and every JSON log line it wrote."""
        self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=30)
        return self.proc.returncode, [json.loads(line) for line in out.splitlines() if line.startswith("{")]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    procs: list[subprocess.Popen[str]] = []

    def start(module: str, *flags: str) -> _Served:
        project = _copy(tmp_path, "crossfn")
        proc = subprocess.Popen(
            [sys.executable, "-m", module, "--insecure", "--address", "127.0.0.1:0", *flags],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={k: v for k, v in os.environ.items() if k not in ("DEBUG", "ADDRESS", "INSECURE")},
        )
        procs.append(proc)
        assert proc.stdout is not None
        for line in proc.stdout:
            if '"serving function"' in line:
                return _Served(proc, int(json.loads(line)["port"]))
        raise AssertionError(f"the function did not start: {proc.wait()}")

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()  # closes the pipe, also of a server that never started


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "flags", "debug", "reason"),
    [
        pytest.param("function.main", (), False, "The template's own click CLI.", id="TemplateMain"),
        pytest.param("function.main", ("--debug",), True, "The template's CLI with -d logs debug lines.",
                     id="TemplateMainDebug"),
        pytest.param("function.main_standard", ("-d",), True, "A main.py built on the SDK's cli module.",
                     id="StandardOptions"),
    ],
)  # fmt: skip
def test_served_call_to_the_ported_template(
    serve: Any, module: str, flags: tuple[str, ...], debug: bool, reason: str
) -> None:
    """main.py serves the function: v1 and v1beta1 calls answer, and the structlog lines carry their fields."""
    served = serve(module, *flags)
    with grpc.insecure_channel(f"127.0.0.1:{served.port}") as channel:
        v1 = fnv1grpc.FunctionRunnerServiceStub(channel).RunFunction(
            json_format.ParseDict(_request("one"), fnv1.RunFunctionRequest()), timeout=30
        )
        beta = fnv1beta1grpc.FunctionRunnerServiceStub(channel).RunFunction(
            json_format.ParseDict(_request("two"), fnv1beta1.RunFunctionRequest()), timeout=30
        )
    status, lines = served.stop()
    assert json_format.MessageToDict(v1) == _want("one"), reason
    assert json_format.MessageToDict(beta) == _want("two"), reason
    assert status == 0, reason
    logged = [
        {k: v for k, v in line.items() if k not in ("ts", "logger")}
        for line in lines
        if line["logger"] == "function.fn"
    ]
    want: list[dict[str, Any]] = [
        {"level": "info", "msg": "Running function", "tag": "one"},
        {"level": "info", "msg": "composed", "tag": "one", "count": 2, "region": "eu-west-1"},
        {"level": "debug", "msg": "desired", "tag": "one", "resources": ["bucket", "replica"]},
        {"level": "info", "msg": "Running function", "tag": "two"},
        {"level": "info", "msg": "composed", "tag": "two", "count": 2, "region": "eu-west-1"},
        {"level": "debug", "msg": "desired", "tag": "two", "resources": ["bucket", "replica"]},
    ]
    assert logged == [w for w in want if debug or w["level"] != "debug"], reason


@pytest.mark.slow
def test_template_cli_without_credentials_says_so(tmp_path: Path) -> None:
    """Neither --insecure nor --tls-certs-dir: the template's CLI prints the runtime's one-line refusal."""
    project = _copy(tmp_path, "crossfn")
    run = subprocess.run(
        [sys.executable, "-m", "function.main", "--address", "127.0.0.1:0"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "TLS_SERVER_CERTS_DIR"},
    )
    assert run.stdout.strip() == (
        "Cannot run function: no credentials were provided - did you provide credentials or use the insecure flag?"
    ), run.stdout + run.stderr
