"""AutoGraph's first pass: jumps (``return``/``break``/``continue``) made into data flow.

A branch or loop body on a tensor becomes a function traced into a subgraph, so it cannot jump
out of its enclosing code.  This pass rewrites the function body so that every jump the
converter handles sits at the end of a path:

- the statements after an ``if`` that may jump are moved into its branches that do not
  (``if c: return a`` / ``return b`` becomes ``if c: return a`` / ``else: return b``);
- a ``return`` inside a loop becomes ``ag__rv = value; ag__ret = True; break`` and the loop is
  followed by ``if ag__ret: return ag__rv``;
- a ``break`` (at the end of a path) sets a flag the loop's condition tests, and a ``continue``
  there just ends the iteration.

As TF, a function with a loop ``else`` clause is not converted (:func:`unsupported_statement`).

A loop whose jumps cannot be brought to the end of a path (inside ``try``/``with``) is left as
Python code (``ag_convert`` stays false on it): it still runs over Python values.
"""

import ast
import copy

from vfw.frontends.tensorflow._autograph_analysis import contains

RETURN_FLAG = "ag__ret"
RETURN_VALUE = "ag__rv"
JUMPS = (ast.Break, ast.Continue)


def _name(name, ctx=None):
    return ast.Name(name, ctx or ast.Load())


def _assign(name, value):
    return ast.Assign([_name(name, ast.Store())], value)


def _constant(value):
    return ast.Constant(value)


def fold(stmts, kinds):
    """``stmts`` with the statements after an ``if`` that may jump (``kinds``) moved into its branches."""
    out = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, kinds):
            out.append(stmt)
            return out  # what follows a jump never runs
        if isinstance(stmt, ast.If) and contains([stmt], kinds, loops=kinds is not JUMPS):
            rest = stmts[i + 1:]
            branch = copy.copy(stmt)
            branch.body = fold(stmt.body + rest, kinds)
            branch.orelse = fold(stmt.orelse + copy.deepcopy(rest), kinds)
            out.append(branch)
            return out
        out.append(stmt)
    return out


def tails_only(stmts, kinds, enter_loops):
    """Whether every jump of ``kinds`` in ``stmts`` ends a path (the last statement of the block or of a branch
    of an ``if`` ending the block)."""
    for i, stmt in enumerate(stmts):
        last = i == len(stmts) - 1
        if isinstance(stmt, kinds):
            if not last:
                return False
        elif isinstance(stmt, ast.If):
            if contains([stmt], kinds, loops=enter_loops) and not (
                    last and tails_only(stmt.body, kinds, enter_loops) and tails_only(stmt.orelse, kinds, enter_loops)):
                return False
        elif contains([stmt], kinds, loops=enter_loops):
            return False
    return True


def _rewrite_nested(stmt, block):
    """Rewrite the statement lists of a ``with`` or ``try`` statement with ``block``."""
    for field in ("body", "orelse", "finalbody"):
        if getattr(stmt, field, None):
            setattr(stmt, field, block(getattr(stmt, field)))
    for handler in getattr(stmt, "handlers", ()):
        handler.body = block(handler.body)


class _Prepare:
    def __init__(self):
        self.count = 0

    def block(self, stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, (ast.While, ast.For)):
                out.extend(self.loop(stmt))
            elif isinstance(stmt, ast.If):
                stmt.body = self.block(stmt.body)
                stmt.orelse = self.block(stmt.orelse)
                out.append(stmt)
            elif isinstance(stmt, (ast.With, ast.Try)):
                _rewrite_nested(stmt, self.block)
                out.append(stmt)
            else:
                out.append(stmt)
        return out

    def loop(self, loop):
        loop.ag_convert = False
        loop.ag_return = False
        loop.ag_break = None
        loop.ag_options = None
        loop.body = self.block(loop.body)
        body = copy.deepcopy(loop.body)  # the rewrites below change nodes; a loop left as Python keeps its own
        returns = contains(body, ast.Return)
        if returns:
            body = _ReturnsToBreaks().block(body)
        body = fold(body, JUMPS)
        if not tails_only(body, JUMPS, enter_loops=False) or (returns and contains(body, ast.Return)):
            return [loop]  # a jump inside try/with: the loop stays Python
        self.count += 1
        flag = f"ag__brk_{self.count}" if contains(body, ast.Break, loops=False) else None
        body = _JumpsToFlags(flag).block(body)
        options = [s for s in body if _is_loop_options(s)]
        loop.ag_options = options[0].value if options else None
        loop.body = [s for s in body if not _is_loop_options(s)] or [ast.Pass()]
        loop.ag_convert, loop.ag_return, loop.ag_break = True, returns, flag
        before, after = [], []
        if returns:
            before += [_assign(RETURN_FLAG, _constant(False)), _assign(RETURN_VALUE, _constant(None))]
            after.append(ast.If(_name(RETURN_FLAG), [ast.Return(_name(RETURN_VALUE))], []))
        if flag:
            before.append(_assign(flag, _constant(False)))
        for node in before + after:
            ast.copy_location(node, loop)
        return before + [loop] + after


def _is_loop_options(stmt):
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) == "set_loop_options"


class _ReturnsToBreaks:
    """``return v`` in a loop body (not in inner loops, already rewritten) -> set the return flag and break."""

    def block(self, stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, ast.Return):
                value = stmt.value if stmt.value is not None else _constant(None)
                new = [_assign(RETURN_VALUE, value), _assign(RETURN_FLAG, _constant(True)), ast.Break()]
                out.extend(ast.copy_location(n, stmt) for n in new)
            elif isinstance(stmt, ast.If):
                stmt.body = self.block(stmt.body)
                stmt.orelse = self.block(stmt.orelse) if stmt.orelse else []
                out.append(stmt)
            elif isinstance(stmt, (ast.With, ast.Try)):
                _rewrite_nested(stmt, self.block)
                out.append(stmt)
            else:
                out.append(stmt)
        return out


class _JumpsToFlags:
    """Tail jumps of a loop body: ``break`` sets ``flag``, ``continue`` ends the iteration."""

    def __init__(self, flag):
        self.flag = flag

    def block(self, stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, ast.Break):
                out.append(ast.copy_location(_assign(self.flag, _constant(True)), stmt))
            elif isinstance(stmt, ast.Continue):
                out.append(ast.copy_location(ast.Pass(), stmt))
            elif isinstance(stmt, ast.If):
                stmt.body = self.block(stmt.body)
                stmt.orelse = self.block(stmt.orelse)
                out.append(stmt)
            else:
                out.append(stmt)
        return out


def unsupported_statement(function_def):
    """``"for/else"`` or ``"while/else"`` when the function has such a loop (TF does not convert it), else None."""
    for node in ast.walk(function_def):
        if isinstance(node, (ast.For, ast.While)) and node.orelse:
            return f"{'for' if isinstance(node, ast.For) else 'while'}/else"
    return None


def prepare(function_def):
    """Rewrite ``function_def``'s body in place (see the module docstring)."""
    function_def.body = fold(_Prepare().block(function_def.body), ast.Return)
