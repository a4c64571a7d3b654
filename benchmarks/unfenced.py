"""``crossfn`` with leader election's write fence turned off: the launcher ``controller.py
--leader-election --launcher benchmarks/unfenced.py`` compares against, to measure the fence's cost."""

from __future__ import annotations

from crossfn.cli import entrypoint
from crossfn.controller.kube import _kube


def _unfenced(self: _kube.KubeApi, fence: object) -> _kube.KubeApi:
    return self


_kube.KubeApi.fenced = _unfenced  # type: ignore[method-assign,assignment]

if __name__ == "__main__":
    entrypoint()
