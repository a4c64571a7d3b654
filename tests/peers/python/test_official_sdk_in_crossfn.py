"""Official-SDK functions run unchanged inside crossfn, with the official SDK and crossfn in one process.

The SDK (``crossplane-function-sdk-python``, in the dev extra) and crossfn
register the same protocol in protobuf's default pool; crossfn shares the
SDK's registration (``crossfn.proto._registry``). Import order is tested in
fresh interpreters; the functions in ``official_functions.py`` run through
render's InProcess runtime, the engine's in-process runner, ``crossfn test``
and ``crossfn function serve``.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import pathlib
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import grpc
import official_functions
import pytest
import yaml
from crossplane.function import resource as sdkresource
from crossplane.function.proto.v1 import run_function_pb2 as sdkv1

from crossfn import cli, engine
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.sdk import function, resource

pytestmark = pytest.mark.peer

HERE = pathlib.Path(__file__).parent

_IMPORTS = {
    "crossfn": "import crossfn.proto.v1.run_function_pb2, crossfn.proto.v1beta1.run_function_pb2, crossfn.sdk.response",
    "sdk": "import crossplane.function.proto.v1.run_function_pb2, crossplane.function.proto.v1beta1.run_function_pb2,"
    " crossplane.function.response",
}

_CHECK = textwrap.dedent(
    """
    from google.protobuf import struct_pb2
    from crossfn.proto.v1 import run_function_pb2 as fnv1
    from crossfn.proto.v1beta1 import run_function_pb2 as fnv1beta1
    from crossfn.sdk import resource, response
    from crossplane.function import resource as sdkresource, response as sdkresponse
    from crossplane.function.proto.v1 import run_function_pb2 as sdkv1
    from crossplane.function.proto.v1beta1 import run_function_pb2 as sdkv1beta1

    assert fnv1.RunFunctionRequest is sdkv1.RunFunctionRequest, "v1 classes are shared"
    assert fnv1beta1.RunFunctionResponse is sdkv1beta1.RunFunctionResponse, "v1beta1 classes are shared"
    req = fnv1.RunFunctionRequest()
    req.meta.tag = "t"
    resource.update(req.observed.composite, {"spec": {"n": 3, "deep": {"list": [1, "a", None]}}})
    assert isinstance(req.observed.composite.resource, struct_pb2.Struct), "well-known types stay protobuf's"
    assert resource.struct_to_dict(req.observed.composite.resource) == {"spec": {"n": 3, "deep": {"list": [1, "a", None]}}}
    assert sdkresource.struct_to_dict(req.observed.composite.resource)["spec"]["n"] == 3.0
    rsp = sdkresponse.to(req)
    assert isinstance(rsp, fnv1.RunFunctionResponse) and rsp.meta.tag == "t", "SDK helpers make crossfn messages"
    response.normal(rsp, "ok")
    assert req.observed.composite.resource.fields["spec"].struct_value["n"] == 3, "Struct's mixin works"
    print("shared")
    """
)


@pytest.mark.parametrize("pure", ["", "1"], ids=["CExtension", "PurePythonConversions"])
@pytest.mark.parametrize("runtime", ["upb", "python"])
@pytest.mark.parametrize("first", ["crossfn", "sdk"], ids=["CrossfnFirst", "SdkFirst"])
def test_import_order(first: str, runtime: str, pure: str) -> None:
    """Either package imports first, with either protobuf runtime, and both end up with one set of classes."""
    second = "sdk" if first == "crossfn" else "crossfn"
    code = f"{_IMPORTS[first]}\n{_IMPORTS[second]}\n{_CHECK}"
    env = {**os.environ, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": runtime, "CROSSFN_PURE_PYTHON": pure}
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env, timeout=120
    )
    assert (done.returncode, done.stdout.strip()) == (0, "shared"), done.stderr[-2000:]


_SKEWED_SDK = textwrap.dedent(
    '''
    """An official SDK of another version: its RunFunctionRequest has a field crossfn's lacks."""
    import ast, pathlib, re
    from google.protobuf import descriptor_pb2, descriptor_pool, duration_pb2, struct_pb2
    from google.protobuf.internal import builder

    src = pathlib.Path({crossfn_pb2!r}).read_text()
    fdp = descriptor_pb2.FileDescriptorProto.FromString(
        ast.literal_eval(re.search(r"add_file\\((b'.*?'), ", src, re.S).group(1))
    )
    field = fdp.message_type[0].field.add(name="newer", number=99, type=9, json_name="newer")
    DESCRIPTOR = descriptor_pool.Default().AddSerializedFile(fdp.SerializeToString())
    builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, globals())
    builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, __name__, globals())
    '''
)

_SKEWED_GRPC = textwrap.dedent(
    """
    class FunctionRunnerServiceServicer:
        def RunFunction(self, request, context):
            raise NotImplementedError
    """
)

_SKEWED_CHECK = textwrap.dedent(
    """
    import asyncio
    from crossfn.proto.v1 import run_function_pb2 as fnv1
    from crossfn.sdk import function, response
    from crossplane.function.proto.v1 import run_function_pb2 as sdkv1
    from crossplane.function.proto.v1 import run_function_pb2_grpc as sdkgrpc

    assert fnv1.RunFunctionRequest is not sdkv1.RunFunctionRequest
    assert fnv1.RunFunctionRequest.DESCRIPTOR.full_name == "crossfn.local.fn.proto.v1.RunFunctionRequest"
    assert "newer" in sdkv1.RunFunctionRequest.DESCRIPTOR.fields_by_name

    class Servicer(sdkgrpc.FunctionRunnerServiceServicer):
        def RunFunction(self, req, context):
            assert type(req) is sdkv1.RunFunctionRequest, type(req)
            rsp = sdkv1.RunFunctionResponse()
            rsp.meta.tag = req.meta.tag
            rsp.results.add(severity=sdkv1.SEVERITY_NORMAL, message=req.observed.composite.resource["kind"])
            return rsp

    req = fnv1.RunFunctionRequest()
    req.meta.tag = "t"
    req.observed.composite.resource.update({"kind": "XR"})
    rsp = asyncio.run(function.to_handler(Servicer)(req))
    assert type(rsp) is fnv1.RunFunctionResponse
    assert (rsp.meta.tag, rsp.results[0].message, rsp.results[0].severity) == ("t", "XR", fnv1.SEVERITY_NORMAL)
    assert response.to(req).meta.tag == "t"
    print("private")
    """
)


@pytest.mark.parametrize("runtime", ["upb", "python"])
@pytest.mark.parametrize("first", ["crossfn", "sdk"], ids=["CrossfnFirst", "SdkFirst"])
def test_another_sdk_version(tmp_path: pathlib.Path, first: str, runtime: str) -> None:
    """An installed SDK whose descriptor differs keeps its own; crossfn takes a private copy and converts."""
    v1 = tmp_path / "crossplane" / "function" / "proto" / "v1"
    v1.mkdir(parents=True)
    (tmp_path / "crossplane" / "function" / "__init__.py").write_text("")
    crossfn_pb2 = pathlib.Path(fnv1.__file__)
    (v1 / "run_function_pb2.py").write_text(_SKEWED_SDK.format(crossfn_pb2=str(crossfn_pb2)))
    (v1 / "run_function_pb2_grpc.py").write_text(_SKEWED_GRPC)
    imports = {
        "crossfn": "import crossfn.proto.v1.run_function_pb2",
        "sdk": "import crossplane.function.proto.v1.run_function_pb2",
    }
    second = "sdk" if first == "crossfn" else "crossfn"
    code = f"{imports[first]}\n{imports[second]}\n{_SKEWED_CHECK}"
    env = {**os.environ, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": runtime, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env, timeout=120
    )
    assert (done.returncode, done.stdout.strip()) == (0, "private"), done.stderr[-2000:]


def _xr() -> dict[str, object]:
    return {
        "apiVersion": "example.org/v1",
        "kind": "XGreeting",
        "metadata": {"name": "hi"},
        "spec": {"greeting": "hej"},
    }


def _write_inputs(tmp_path: pathlib.Path, obj: str) -> tuple[pathlib.Path, pathlib.Path, pathlib.Path]:
    xr = tmp_path / "xr.yaml"
    xr.write_text(yaml.safe_dump(_xr()))
    composition = tmp_path / "composition.yaml"
    composition.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "apiextensions.crossplane.io/v1",
                "kind": "Composition",
                "metadata": {"name": "greeting"},
                "spec": {
                    "compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XGreeting"},
                    "mode": "Pipeline",
                    "pipeline": [{"step": "greet", "functionRef": {"name": "function-greet"}}],
                },
            }
        )
    )
    functions = tmp_path / "functions.yaml"
    functions.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "pkg.crossplane.io/v1",
                "kind": "Function",
                "metadata": {
                    "name": "function-greet",
                    "annotations": {
                        "render.crossplane.io/runtime": "InProcess",
                        "render.crossfn.io/runtime-inprocess-object": f"official_functions:{obj}",
                    },
                },
                "spec": {"package": "xpkg.crossplane.io/example/function-greet:v0.1.0"},
            }
        )
    )
    return xr, composition, functions


_RUNNABLE = [
    pytest.param("FunctionRunner", "async class said 'hej' (capabilities)", id="AsyncClass"),
    pytest.param("SyncFunctionRunner", "sync class said 'hej' (capabilities)", id="SyncClass"),
    pytest.param("runner", "instance said 'hej' (capabilities)", id="Instance"),
]


@pytest.mark.parametrize(("obj", "want"), _RUNNABLE)
def test_render_in_process(
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    obj: str,
    want: str,
) -> None:
    """crossfn render runs an official-SDK servicer with the InProcess runtime: class or instance, sync or async."""
    monkeypatch.syspath_prepend(str(HERE))
    xr, composition, functions = _write_inputs(tmp_path, obj)
    status = cli.main(["render", "--classic", str(xr), str(composition), str(functions), "-r"])
    out, err = capsys.readouterr()
    assert status == 0, err
    docs = list(yaml.safe_load_all(out))
    configmap = next(d for d in docs if d["kind"] == "ConfigMap")
    name = sdkresource.child_name("hi", "greeting")
    assert (configmap["metadata"]["name"], configmap["data"]) == (name, {"greeting": "hej"})
    assert [d["message"] for d in docs if d["kind"] == "Result"] == [want]


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        pytest.param(
            "NeedsArgs",
            "official_functions.NeedsArgs: the class cannot be created without arguments: "
            "missing a required argument: 'greeting'",
            id="ClassNeedsArguments",
        ),
        pytest.param(
            "OneArgument",
            "official_functions.OneArgument: RunFunction must take (request, context); it takes (req)",
            id="WrongSignature",
        ),
        pytest.param(
            "not_a_function",
            "builtins.int object: it is neither a compose(req, rsp) function nor a servicer with RunFunction",
            id="NotCallable",
        ),
    ],
)
def test_render_refuses_what_cannot_be_served(
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    obj: str,
    want: str,
) -> None:
    """What cannot be served is refused before any function runs, in one line naming the Function and object."""
    monkeypatch.syspath_prepend(str(HERE))
    xr, composition, functions = _write_inputs(tmp_path, obj)
    status = cli.main(["render", str(xr), str(composition), str(functions)])
    out, err = capsys.readouterr()
    assert (status, out) == (1, "")
    assert err == (
        "crossfn: error: cannot render composite resource: "
        f'cannot load in-process Function "function-greet" from "official_functions:{obj}": '
        f"cannot serve {want}\n"
    )


def test_engine_in_process_runner_converts_nothing() -> None:
    """The engine's in-process runner runs an official-SDK servicer class; the messages are the SDK's own."""
    assert fnv1.RunFunctionRequest is sdkv1.RunFunctionRequest, "identical descriptors share one class"  # type: ignore[comparison-overlap]
    runner = engine.InProcessRunner({"greet": official_functions.FunctionRunner})
    req = fnv1.RunFunctionRequest()
    req.meta.tag = "t"
    resource.update(req.observed.composite, _xr())
    rsp = asyncio.run(runner.run_function("greet", req))
    assert (rsp.meta.tag, [r.message for r in rsp.results]) == (
        "t",
        ["async class said 'hej' (no capabilities)"],
    )


def test_v1beta1_servicer_gets_v1beta1_messages() -> None:
    """A servicer built on the SDK's v1beta1 base gets v1beta1 requests; its response comes back as v1."""
    req = fnv1.RunFunctionRequest()
    req.meta.tag = "beta"
    rsp = function.to_sync_handler(official_functions.BetaFunctionRunner)(req)
    assert type(rsp) is fnv1.RunFunctionResponse
    assert (rsp.meta.tag, [r.message for r in rsp.results]) == ("beta", ["v1beta1 servicer"])


def test_crossfn_test(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """crossfn test runs a CompositionTest whose Function is an official-SDK servicer class, in-process."""
    monkeypatch.syspath_prepend(str(HERE))
    _write_inputs(tmp_path, "FunctionRunner")
    case = tmp_path / "test.yaml"
    case.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "test.crossplane.io/v1alpha1",
                "kind": "CompositionTest",
                "metadata": {"name": "greeting"},
                "spec": {
                    "tests": [
                        {
                            "name": "greets",
                            "inputs": {
                                "xr": {"path": "xr.yaml"},
                                "composition": {"path": "composition.yaml"},
                                "functions": {"path": "functions.yaml"},
                            },
                            "assertions": [
                                {
                                    "type": "chainsaw",
                                    "chainsaw": {
                                        "resources": [
                                            {
                                                "apiVersion": "v1",
                                                "kind": "ConfigMap",
                                                "data": {"greeting": "hej"},
                                            }
                                        ]
                                    },
                                }
                            ],
                        }
                    ]
                },
            }
        )
    )
    status = cli.main(["test", str(case)])
    out, err = capsys.readouterr()
    assert status == 0, out + err
    assert out == "PASS greeting/greets\n1 passed, 0 failed\n", out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def _serve(obj: str, *flags: str) -> Iterator[str]:
    address = f"127.0.0.1:{_free_port()}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crossfn",
            "function",
            "serve",
            f"official_functions:{obj}",
            "--insecure",
            "--address",
            address,
            *flags,
        ],
        cwd=HERE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield address
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err[-2000:]


def _call(address: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=30)
        rsp: fnv1.RunFunctionResponse = fnv1grpc.FunctionRunnerServiceStub(channel).RunFunction(
            req, timeout=30
        )
        return rsp


@pytest.mark.parametrize("workers", ["1", "2"], ids=["OneProcess", "TwoWorkers"])
@pytest.mark.parametrize(("obj", "want"), _RUNNABLE)
def test_function_serve(obj: str, want: str, workers: str) -> None:
    """crossfn function serve module:Obj serves an official-SDK servicer (class or instance) over real gRPC."""
    req = fnv1.RunFunctionRequest()
    req.meta.tag = "served"
    req.meta.capabilities.append(fnv1.CAPABILITY_CAPABILITIES)
    resource.update(req.observed.composite, _xr())
    with _serve(obj, "--workers", workers) as address:
        rsp = _call(address, req)
    assert (rsp.meta.tag, [r.message for r in rsp.results]) == ("served", [want])
    assert resource.struct_to_dict(rsp.desired.resources["greeting"].resource)["data"] == {"greeting": "hej"}


def test_function_serve_refuses_at_start() -> None:
    """A servicer class that needs arguments stops crossfn function serve at start, with one line."""
    done = subprocess.run(
        [sys.executable, "-m", "crossfn", "function", "serve", "official_functions:NeedsArgs", "--insecure",
         "--address", f"127.0.0.1:{_free_port()}"],
        check=False, cwd=HERE, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert done.stderr == (
        "crossfn: error: cannot serve official_functions.NeedsArgs: the class cannot be created without arguments: "
        "missing a required argument: 'greeting'\n"
    )


def _fields(file: Any) -> set[str]:
    """Every message field and enum value of a protocol file, as ``Message.field=number`` lines."""
    out: set[str] = set()

    def walk(messages: Any, prefix: str) -> None:
        for m in messages:
            out.update(
                f"{prefix}{m.name}.{f.name}={f.number}:{f.type}:{f.is_repeated}:{f.has_presence}"
                for f in m.fields
            )
            walk(m.nested_types, f"{prefix}{m.name}.")

    walk(file.message_types_by_name.values(), "")
    for e in file.enum_types_by_name.values():
        out.update(f"{e.name}.{v.name}={v.number}" for v in e.values)
    return out


@pytest.mark.parametrize("version", ["v1", "v1beta1"])
def test_descriptors_match_the_sdk(version: str) -> None:
    """crossfn's protocol is the installed SDK's, field for field both ways, so the two share one registration."""
    ours = importlib.import_module(f"crossfn.proto.{version}.run_function_pb2").DESCRIPTOR
    theirs = importlib.import_module(f"crossplane.function.proto.{version}.run_function_pb2").DESCRIPTOR
    assert (sorted(_fields(ours) - _fields(theirs)), sorted(_fields(theirs) - _fields(ours))) == ([], []), (
        "(only crossfn's, only the SDK's)"
    )
    assert ours is theirs, "byte-identical descriptors are one registration"
