"""Graphviz text as the Go library ``github.com/emicklei/dot`` (v1.x) writes it, for ``crossplane trace -o dot``.

The library's ``Graph.Write`` decides the bytes: ``graph  {`` (the graph's ID is
empty, hence two spaces), the graph's own attributes (none here) on a line of
their own, then every node as ``n<seq>[attr="value",...];`` and every edge as
``n<seq>--n<seq>;``, each on a line indented by one tab, and ``}``. Nodes are
written in the order of their IDs *as strings* (``"10"`` before ``"2"``),
edges grouped by their source node's ID in the same order, then in the order
they were added; attributes in name order, values quoted as Go's ``%q`` does.
``seq`` numbers nodes from 1 in the order they were created.

Only what the trace printer uses is here: an undirected graph of nodes and
edges with string attributes (no subgraphs, ports, ranks or HTML labels).
"""

from __future__ import annotations

import dataclasses

from crossfn.gocompat import strconv

__all__ = ["Graph"]


@dataclasses.dataclass
class _Node:
    seq: int
    attributes: dict[str, str]


class Graph:
    """An undirected graph (``dot.NewGraph(dot.Undirected)``)."""

    def __init__(self) -> None:
        self._nodes: dict[str, _Node] = {}
        self._edges: dict[str, list[str]] = {}

    def node(self, node_id: str) -> None:
        """Add node ``node_id`` (labelled with its ID until :meth:`attr` says otherwise); a second call changes nothing."""
        if node_id not in self._nodes:
            self._nodes[node_id] = _Node(len(self._nodes) + 1, {"label": node_id})

    def attr(self, node_id: str, name: str, value: str) -> None:
        """Set a node's attribute; an empty value leaves it as it was (the library ignores empty strings)."""
        if name and value:
            self._nodes[node_id].attributes[name] = value

    def edge(self, from_id: str, to_id: str) -> None:
        """Add an edge between two nodes already added."""
        self._edges.setdefault(from_id, []).append(to_id)

    def write(self) -> str:
        """The graph as the library's ``Graph.Write`` prints it."""
        lines = ["graph  {", "\t"]
        for node_id in sorted(self._nodes, key=_go_order):
            node = self._nodes[node_id]
            lines.append(f"\tn{node.seq}{_attributes(node.attributes)};")
        for from_id in sorted(self._edges, key=_go_order):
            for to_id in self._edges[from_id]:
                lines.append(f"\tn{self._nodes[from_id].seq}--n{self._nodes[to_id].seq};")
        lines += ["\t", "}", ""]
        return "\n".join(lines)


def _attributes(attributes: dict[str, str]) -> str:
    if not attributes:
        return ""
    pairs = (f"{name}={strconv.quote(attributes[name])}" for name in sorted(attributes, key=_go_order))
    return "[" + ",".join(pairs) + "]"


def _go_order(s: str) -> bytes:
    """Go's ``sort.Strings`` order: by UTF-8 bytes."""
    return s.encode("utf-8", "surrogatepass")
