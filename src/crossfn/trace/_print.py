"""The trace's five outputs, byte for byte as ``crossplane trace`` prints them.

* ``default`` and ``wide``: a tree in columns, through Go's tabwriter (minimum
  width 6, padding 3): ``NAME`` (``Kind/name``, `` (namespace)`` when it has one,
  behind ``├─ ``/``└─ `` branches), wide's ``RESOURCE`` (the
  ``crossplane.io/composition-resource-name`` annotation), ``SYNCED`` and
  ``READY`` (the conditions' status, ``-`` when absent) and ``STATUS``;
* ``json``: the tree as Go's ``json.MarshalIndent`` writes it: each node is
  ``{"object": ..., "error": ..., "children": [...]}`` (the last two only when
  set); a list of roots is ``{"items": [...]}``;
* ``yaml``: the same through ``sigs.k8s.io/yaml`` (keys sorted, so ``children``
  comes first), followed by an empty line as upstream's ``Fprintln`` adds one;
* ``dot``: a Graphviz graph (:mod:`crossfn.gocompat.dot`), nodes numbered
  breadth first, labelled ``Name``, ``ApiVersion``, ``Namespace`` (when set),
  ``Ready`` and ``Synced``.

STATUS (upstream ``getResourceStatus``), first rule that applies:

1. the object is being deleted: ``Deleting``;
2. it could not be read: ``Error: <the error>``;
3. Ready and Synced are both True: Ready's reason;
4. Synced is not True and has a reason or message: ``<reason>: <message>``;
5. Ready is not True and has a reason or message: the same of Ready;
6. otherwise Ready's reason and message, if any.

Outside ``wide`` a message longer than 64 bytes keeps its last 64, after
``...``. A message cut inside a character keeps the character's remaining bytes
as U+FFFD each (Go prints the raw bytes; the column widths are the same).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from crossfn import errors
from crossfn.gocompat import dot as godot
from crossfn.gocompat import json as gojson
from crossfn.gocompat import tabwriter, yaml_emitter
from crossfn.trace import _resource

__all__ = ["render", "status"]

RESOURCE_NAME_ANNOTATION = "crossplane.io/composition-resource-name"
_CROP = 64


def render(output: str, roots: Sequence[_resource.Resource], *, as_list: bool) -> str:
    """The text ``-o output`` prints for one root (``as_list`` false) or for the roots of a listing."""
    if output in ("default", "wide"):
        return _table(roots, wide=output == "wide")
    if output == "dot":
        return _dot(roots)
    value: Any = gojson.Struct(items=[_json(r) for r in roots]) if as_list else _json(roots[0])
    if output == "json":
        return gojson.marshal(value, indent="  ") + "\n"
    if output == "yaml":
        return yaml_emitter.to_yaml(value) + "\n"  # keys sorted: a Struct is a map once in YAML
    raise errors.InputError(f"unknown printer output type: {output}")


def _json(r: _resource.Resource) -> gojson.Struct:
    node = gojson.Struct(object=r.obj)
    if r.error is not None:
        node["error"] = r.error.json
    if r.children:
        node["children"] = [_json(c) for c in r.children]
    return node


# -- default and wide ------------------------------------------------------------------------------


def _table(roots: Sequence[_resource.Resource], *, wide: bool) -> str:
    if not roots:
        raise errors.CrossfnError("cannot print resource tree: resource list is empty")
    header = ["NAME", *(["RESOURCE"] if wide else []), "SYNCED", "READY", "STATUS"]
    writer = tabwriter.Writer(minwidth=6, padding=3)
    writer.write("\t".join(header) + "\n")
    for root in roots:
        for name, r in _walk(root):
            writer.write("\t".join(_row(r, name, wide=wide)) + "\n")
    return writer.flush()


def _walk(root: _resource.Resource) -> list[tuple[str, _resource.Resource]]:
    """Every node depth first, with its name behind the branches that lead to it."""
    rows: list[tuple[str, _resource.Resource]] = []

    def visit(r: _resource.Resource, depth: int, last: bool, prefix: str) -> None:
        branch, child_prefix = "", prefix
        if depth:
            branch = prefix + ("└─ " if last else "├─ ")
            child_prefix = prefix + ("   " if last else "│  ")
        name = f"{branch}{r.kind}/{r.name}"
        if r.namespace:
            name += f" ({r.namespace})"
        rows.append((name, r))
        for i, child in enumerate(r.children):
            visit(child, depth + 1, i == len(r.children) - 1, child_prefix)

    visit(root, 0, False, "")
    return rows


def _row(r: _resource.Resource, name: str, *, wide: bool) -> list[str]:
    ready = _resource.condition(r.obj, "Ready")
    synced = _resource.condition(r.obj, "Synced")
    annotations = r.metadata.get("annotations")
    resource_name = annotations.get(RESOURCE_NAME_ANNOTATION) if isinstance(annotations, Mapping) else None
    row = [name, *([str(resource_name or "")] if wide else [])]
    return [*row, _dash(synced), _dash(ready), status(r, wide=wide)]


def status(r: _resource.Resource, *, wide: bool) -> str:
    """The STATUS column (the module docstring's rules)."""
    ready = _resource.condition(r.obj, "Ready")
    synced = _resource.condition(r.obj, "Synced")
    text, message = "", ""
    if r.metadata.get("deletionTimestamp") is not None:
        text = "Deleting"
    elif r.error is not None:
        text, message = "Error", r.error.message
    elif ready.get("status") == "True" and synced.get("status") == "True":
        text = str(ready.get("reason") or "")
    elif synced.get("status") != "True" and (synced.get("reason") or synced.get("message")):
        text, message = str(synced.get("reason") or ""), str(synced.get("message") or "")
    elif ready.get("status") != "True" and (ready.get("reason") or ready.get("message")):
        text, message = str(ready.get("reason") or ""), str(ready.get("message") or "")
    else:
        text, message = str(ready.get("reason") or ""), str(ready.get("message") or "")
    if not wide:
        message = _crop(message)
    return f"{text}: {message}" if message else text


def _crop(message: str) -> str:
    raw = message.encode("utf-8", "surrogatepass")
    if len(raw) <= _CROP:
        return message
    return "..." + raw[-_CROP:].decode("utf-8", "replace")


def _dash(condition: Mapping[str, Any]) -> str:
    return str(condition.get("status") or "-")


# -- dot -------------------------------------------------------------------------------------------


def _dot(roots: Sequence[_resource.Resource]) -> str:
    if not roots:
        raise errors.CrossfnError("resource list is empty")
    graph = godot.Graph()
    queue: list[tuple[_resource.Resource, str | None]] = [(r, None) for r in roots]
    next_id = 0
    while queue:
        r, parent = queue.pop(0)
        node = str(next_id)
        next_id += 1
        graph.node(node)
        if parent is not None:
            graph.edge(parent, node)
        graph.attr(node, "label", _label(r))
        graph.attr(node, "penwidth", "2")
        queue += [(child, node) for child in r.children]
    return graph.write()


def _label(r: _resource.Resource) -> str:
    lines = [f"Name: {r.kind}/{r.name}", f"ApiVersion: {r.api_version}"]
    if r.namespace:
        lines.append(f"Namespace: {r.namespace}")
    lines += [
        f"Ready: {_resource.condition(r.obj, 'Ready').get('status') or ''}",
        f"Synced: {_resource.condition(r.obj, 'Synced').get('status') or ''}",
    ]
    return "\n".join(lines) + "\n"
