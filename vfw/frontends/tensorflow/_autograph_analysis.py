"""Static analysis for the AutoGraph converter: which names a statement assigns and which are live.

A conditional or a loop on a tensor becomes ``tf.cond``/``tf.while_loop`` whose outputs are the
variables the statement assigns that are read afterwards (TF's rule: a variable assigned in one
branch only is an error only when it is used later).  Liveness is computed backwards over the
function body; statements the converter does not look into (``try``, ``with``, ``match``) are
treated as reading every name they mention and assigning none, which only errs on the side of
keeping a variable.
"""

import ast

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
          ast.DictComp, ast.GeneratorExp)


def walk_scope(node):
    """The nodes under ``node`` (included) that belong to its scope: nested functions, classes, lambdas and
    comprehensions are yielded but not entered."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is not node and isinstance(current, SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(current))


def _scope_nodes(nodes):
    for node in nodes:
        yield from walk_scope(node)


def assigned(nodes):
    """set of str: names the statements bind in the current scope (assignments, loop targets, ``def``/``class``,
    imports, ``except ... as``)."""
    names = set()
    for node in _scope_nodes(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def read(nodes):
    """set of str: every name the nodes read, nested scopes included (their free variables)."""
    names = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return names


def contains(nodes, kinds, loops=True):
    """Whether a node of ``kinds`` is in the statements' scope (inside nested loops too unless ``loops`` is
    false: a ``break`` there belongs to the inner loop)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, SCOPES) or (not loops and isinstance(node, (ast.For, ast.While, ast.AsyncFor))):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


class Liveness:
    """Live variables before and after statements (``live_out[id(stmt)]``: the names live after ``stmt``)."""

    def __init__(self):
        self.live_out = {}
        self.loop_head = {}  # id(loop) -> the names live where its condition is tested

    def block(self, stmts, live, head=frozenset()):
        """Names live before ``stmts`` given those ``live`` after them; ``head``: the names live at the head of
        the enclosing loop (where ``continue`` and ``break`` go; ``break`` only to a subset of them)."""
        for stmt in reversed(stmts):
            self.live_out[id(stmt)] = frozenset(live)
            live = self.statement(stmt, frozenset(live), head)
        return frozenset(live)

    def statement(self, stmt, live, head):
        if isinstance(stmt, ast.If):
            return read([stmt.test]) | self.block(stmt.body, live, head) | self.block(stmt.orelse, live, head)
        if isinstance(stmt, ast.While):
            loop_head = self._loop(stmt, live, lambda h: read([stmt.test]) | self.block(stmt.body, h, h))
            return loop_head
        if isinstance(stmt, ast.For):
            targets = assigned([stmt.target])

            def body(h):
                return (self.block(stmt.body, h, h) - targets) | (read([stmt.target]) - targets)
            return read([stmt.iter]) | self._loop(stmt, live, body)
        if isinstance(stmt, (ast.Break, ast.Continue)):
            return head
        if isinstance(stmt, ast.Return):
            return read([stmt.value]) if stmt.value is not None else frozenset()
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.FunctionDef, ast.ClassDef,
                             ast.Import, ast.ImportFrom, ast.Pass, ast.Delete, ast.Assert, ast.Raise)):
            return (live - assigned([stmt])) | read([stmt])
        if isinstance(stmt, ast.With):
            bound = assigned([item.optional_vars for item in stmt.items if item.optional_vars is not None])
            return read(stmt.items) | (self.block(stmt.body, live, head) - bound)
        if isinstance(stmt, ast.Try):
            after = live | self.block(stmt.finalbody, live, head)
            handlers = frozenset().union(*[self.block(h.body, after, head) for h in stmt.handlers])
            orelse = self.block(stmt.orelse, after, head)
            return after | handlers | read([stmt]) | self.block(stmt.body, after | orelse, head)
        return live | read([stmt])  # statements not looked into (match...): keep everything, kill nothing

    def _loop(self, stmt, live, through_body):
        """Fixpoint of the names live at a loop's head."""
        after = live | self.block(stmt.orelse, live, live)
        if getattr(stmt, "ag_break", None):
            after |= {stmt.ag_break}  # the converted loop's test reads its break flag
        head = frozenset(after)
        while True:
            new = after | through_body(head)
            if new == head:
                self.loop_head[id(stmt)] = head
                return head
            head = new
