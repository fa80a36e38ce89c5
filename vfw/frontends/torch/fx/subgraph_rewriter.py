"""``torch.fx.subgraph_rewriter.replace_pattern``: replace every match of a traced pattern."""

__all__ = ["replace_pattern", "Match"]


class Match:
    """One replaced occurrence: the pattern's ``anchor`` node and the map from pattern nodes to graph nodes."""

    def __init__(self, anchor, nodes_map):
        self.anchor = anchor
        self.nodes_map = nodes_map


def _same_target(pattern_node, node):
    if pattern_node.op != node.op:
        return False
    return pattern_node.op in ("placeholder",) or pattern_node.target == node.target


def _match(pattern_node, node, mapping, placeholders):
    """Extend ``mapping`` so that ``pattern_node``'s subtree matches ``node``'s; False when it cannot."""
    if pattern_node in placeholders:
        bound = mapping.setdefault(pattern_node, node)
        return bound is node
    if pattern_node in mapping:
        return mapping[pattern_node] is node
    if not _same_target(pattern_node, node) or len(pattern_node.args) != len(node.args) \
            or pattern_node.kwargs.keys() != node.kwargs.keys():
        return False
    mapping[pattern_node] = node
    pairs = list(zip(pattern_node.args, node.args)) + [(pattern_node.kwargs[k], node.kwargs[k])
                                                          for k in pattern_node.kwargs]
    for expected, actual in pairs:
        if hasattr(expected, "op"):
            if not hasattr(actual, "op") or not _match(expected, actual, mapping, placeholders):
                return False
        elif expected != actual:
            return False
    return True


def replace_pattern(gm, pattern, replacement):
    """Replace every non-overlapping occurrence of ``pattern`` in ``gm``'s graph by ``replacement``.

    Parameters
    ----------
    gm : GraphModule
        Rewritten in place (recompiled).
    pattern, replacement : callable or GraphModule
        Functions of the same inputs; traced with ``symbolic_trace``. The pattern must have one output.

    Returns
    -------
    list of Match
    """
    from vfw.frontends.torch.fx._symbolic_trace import symbolic_trace
    from vfw.frontends.torch.fx.graph_module import GraphModule

    pattern_graph = (pattern if isinstance(pattern, GraphModule) else symbolic_trace(pattern)).graph
    replacement_graph = (replacement if isinstance(replacement, GraphModule) else symbolic_trace(replacement)).graph
    placeholders = [n for n in pattern_graph.nodes if n.op == "placeholder"]
    pattern_output = next(n for n in pattern_graph.nodes if n.op == "output").args[0]
    graph = gm.graph
    matches, claimed = [], set()
    for node in list(graph.nodes):
        mapping = {}
        if node in claimed or not _match(pattern_output, node, mapping, set(placeholders)):
            continue
        inner = [mapping[p] for p in mapping if p not in placeholders]
        # Interior values read outside the match cannot be removed: skip such occurrences.
        if any(user not in inner for n in inner if n is not node for user in n.users) or claimed & set(inner):
            continue
        claimed.update(inner)
        with graph.inserting_before(node):
            remap = {p: mapping[p] for p in placeholders}
            result = graph.graph_copy(replacement_graph, {
                r: remap[p] for r, p in zip((n for n in replacement_graph.nodes if n.op == "placeholder"),
                                            placeholders)})
        node.replace_all_uses_with(result)
        for dead in reversed([n for n in graph.nodes if n in inner]):
            graph.erase_node(dead)
        matches.append(Match(node, mapping))
    gm.recompile()
    return matches
