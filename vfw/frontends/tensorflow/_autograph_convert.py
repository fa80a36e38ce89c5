"""AutoGraph's source transformation: a Python function rewritten so that its control flow calls runtime helpers.

After :mod:`_autograph_prepare` has turned jumps into data flow, each statement is rewritten:

- ``if test: body else: orelse`` becomes two functions of the variables the statement assigns,
  returning their new values, and ``a, b = ag__.if_stmt(test, true_fn, false_fn, values, names,
  live)`` (``live``: those read afterwards, the outputs of a graph cond).  An ``if`` whose paths
  all return becomes ``return ag__.if_return(test, true_fn, false_fn, values)``;
- ``while``/``for`` become a test function and a body function of the variables the loop assigns
  (``ag__.while_stmt``/``ag__.for_stmt``); ``tf.autograph.experimental.set_loop_options(...)`` at
  the top of a loop body is evaluated before the loop and passed to it;
- ``a and b``, ``a or b``, ``not a`` and ``x if c else y`` call ``ag__.and_``... with the lazily
  evaluated operands as lambdas, and calls go through ``ag__.converted_call`` (user functions are
  converted in turn; ``super()`` is spelled out, as the body may run inside a generated function).

The runtime helpers (:mod:`_autograph_runtime`) run plain Python on Python values and build graph
control flow on tensors.  Generated nodes carry the line of the statement they replace, and the
code is compiled under the function's own file name, so tracebacks point at the user's source.
"""

import ast

from vfw.frontends.tensorflow._autograph_analysis import Liveness, assigned, contains, walk_scope
from vfw.frontends.tensorflow._autograph_prepare import prepare, tails_only, unsupported_statement

AG = "ag__"
ITEM = "ag__item"
# Calls that read their caller's frame: left as they are.
_FRAME_CALLS = frozenset(["locals", "globals", "vars", "eval", "exec", "dir", "super"])


def _load(name):
    return ast.Name(name, ast.Load())


def _ag(attr):
    return ast.Attribute(_load(AG), attr, ast.Load())


def _call(func, *args):
    return ast.Call(func, list(args), [])


def _names(names, ctx=None):
    ctx = ctx or ast.Load()
    return ast.Tuple([ast.Name(n, ctx) for n in names], ctx)


def _strings(names):
    return ast.Tuple([ast.Constant(n) for n in names], ast.Load())


def _lambda(body):
    return ast.Lambda(ast.arguments([], [], None, [], [], None, []), body)


def _def(name, params, body):
    args = ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, [])
    return ast.FunctionDef(name, args, body or [ast.Pass()], [], None)


class _Expressions(ast.NodeTransformer):
    """Calls, boolean operators and conditional expressions of one statement (nested scopes are not entered:
    nested functions are converted when called)."""

    def __init__(self, self_name):
        self.self_name = self_name

    def visit(self, node):
        if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return node
        return super().visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "super" and not node.args and self.self_name:
            node.args = [_load("__class__"), _load(self.self_name)]
            return node
        if isinstance(func, ast.Name) and func.id in _FRAME_CALLS:
            return node
        return ast.copy_location(ast.Call(_ag("converted_call"), [func, *node.args], node.keywords), node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if contains(node.values, ast.NamedExpr):
            return node  # an assignment expression would bind inside the lambda
        helper = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = _call(_ag(helper), _lambda(value), _lambda(result))
        return ast.copy_location(result, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call(_ag("not_"), node.operand), node)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if contains([node.body, node.orelse], ast.NamedExpr):
            return node
        return ast.copy_location(_call(_ag("if_exp"), node.test, _lambda(node.body), _lambda(node.orelse)), node)


class _Converter:
    def __init__(self, liveness, declared, self_name):
        self.liveness = liveness
        self.declared = declared  # name -> ast.Global or ast.Nonlocal: not variables of the generated functions
        self.expressions = _Expressions(self_name)
        self.count = 0

    def expr(self, node):
        return self.expressions.visit(node)

    def block(self, stmts, tail=False, top=False):
        """Converted ``stmts``; ``tail``: the block ends the function (its ``return``\\s are the function's);
        ``top``: it is the function's own body (not a generated function's)."""
        out = []
        for i, stmt in enumerate(stmts):
            out.extend(self.statement(stmt, tail and i == len(stmts) - 1, top))
        return out

    def statement(self, stmt, tail, top):
        if isinstance(stmt, ast.If):
            if contains([stmt], ast.Return):
                if tail and tails_only([stmt], ast.Return, enter_loops=True):
                    return self.returning_if(stmt, top)
                return [self.kept(stmt)]
            if contains([stmt], (ast.Break, ast.Continue), loops=False):
                return [self.kept(stmt)]  # jumps of a loop left as Python
            return self.state_if(stmt)
        if isinstance(stmt, (ast.While, ast.For)) and getattr(stmt, "ag_convert", False):
            return self.loop(stmt)
        if isinstance(stmt, (ast.While, ast.For, ast.With, ast.Try)):
            return [self.kept(stmt)]
        return [self.expr(stmt)]

    def kept(self, stmt):
        """A compound statement left as Python: its expressions and inner blocks converted."""
        for field in ("test", "iter"):
            if hasattr(stmt, field):
                setattr(stmt, field, self.expr(getattr(stmt, field)))
        for item in getattr(stmt, "items", ()):
            item.context_expr = self.expr(item.context_expr)
        for field in ("body", "orelse", "finalbody"):
            if getattr(stmt, field, None):
                setattr(stmt, field, self.block(getattr(stmt, field)))
        for handler in getattr(stmt, "handlers", ()):
            handler.body = self.block(handler.body)
        return stmt

    # -- generated functions ---------------------------------------------------------------------
    def _variables(self, nodes):
        return sorted(assigned(nodes) - set(self.declared))

    def _declarations(self, nodes):
        """``global``/``nonlocal`` statements for the declared names the nodes assign."""
        names = assigned(nodes) & set(self.declared)
        out = []
        for kind in (ast.Global, ast.Nonlocal):
            chosen = sorted(n for n in names if self.declared[n] is kind)
            if chosen:
                out.append(kind(chosen))
        return out

    def _function(self, kind, params, stmts, result, tail=False):
        self.count += 1
        body = self._declarations(stmts) + self.block(stmts, tail=tail)
        if result is not None:
            body.append(ast.Return(result))
        elif not body or not isinstance(body[-1], ast.Return):
            body.append(ast.Return(_ag("NO_RETURN")))  # a path falling off the end of the function
        return _def(f"ag__{kind}_{self.count}", params, body)

    @staticmethod
    def _values(names):
        return _call(_ag("values"), _call(_load("locals")), _strings(names))

    def _assign_back(self, names, call):
        if not names:
            return ast.Expr(call)
        return ast.Assign([_names(names, ast.Store())], call)

    def state_if(self, stmt):
        names = self._variables(stmt.body + stmt.orelse)
        live = sorted(set(names) & self.liveness.live_out.get(id(stmt), set(names)))
        true_fn = self._function("if_true", names, stmt.body, self._values(names))
        false_fn = self._function("if_false", names, stmt.orelse, self._values(names))
        call = _call(_ag("if_stmt"), self.expr(stmt.test), _load(true_fn.name), _load(false_fn.name),
                     self._values(names), _strings(names), _strings(live))
        return self._located([true_fn, false_fn, self._assign_back(names, call)], stmt)

    def returning_if(self, stmt, top):
        names = self._variables(stmt.body + stmt.orelse)
        true_fn = self._function("if_true", names, stmt.body, None, tail=True)
        false_fn = self._function("if_false", names, stmt.orelse, None, tail=True)
        call = _call(_ag("if_return"), self.expr(stmt.test), _load(true_fn.name), _load(false_fn.name),
                     self._values(names))
        if top:
            call = _call(_ag("retval"), call)
        return self._located([true_fn, false_fn, ast.Return(call)], stmt)

    def loop(self, stmt):
        is_for = isinstance(stmt, ast.For)
        names = self._variables(stmt.body + ([stmt.target] if is_for else []))
        flag = stmt.ag_break
        live = sorted(set(names) & self.liveness.loop_head.get(id(stmt), set(names)))
        options = ast.Constant(None)
        if stmt.ag_options is not None:
            options = ast.Call(_ag("loop_options"), stmt.ag_options.args, stmt.ag_options.keywords)
        not_broken = None if flag is None else _call(_ag("not_"), _load(flag))
        if is_for:
            target = ast.Assign([stmt.target], _load(ITEM))
            body_fn = self._function("for_body", [ITEM, *names], [target, *stmt.body], self._values(names))
            test_fn = None if flag is None else self._function("for_test", names, [], not_broken)
            call = _call(_ag("for_stmt"), self.expr(stmt.iter), _load(test_fn.name) if test_fn else ast.Constant(None),
                         _load(body_fn.name), self._values(names), _strings(names), _strings(live), options,
                         ast.Constant(stmt.ag_return))
        else:
            test = self.expr(stmt.test)
            if not_broken is not None:
                test = _call(_ag("and_"), _lambda(not_broken), _lambda(test))
            test_fn = self._function("while_test", names, [], test)
            body_fn = self._function("while_body", names, stmt.body, self._values(names))
            call = _call(_ag("while_stmt"), _load(test_fn.name), _load(body_fn.name), self._values(names),
                         _strings(names), _strings(live), options, ast.Constant(stmt.ag_return))
        generated = [test_fn] if test_fn is not None else []
        return self._located(generated + [body_fn, self._assign_back(names, call)], stmt)

    @staticmethod
    def _located(nodes, stmt):
        for node in nodes:
            ast.copy_location(node, stmt)
            for child in ast.walk(node):
                if not hasattr(child, "lineno") or child.lineno is None:
                    ast.copy_location(child, stmt)
        return nodes


def _declared(function_def):
    declared = {}
    for node in walk_scope(function_def):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                declared[name] = type(node)
    return declared


def convert_tree(function_def, freevars):
    """A module defining ``ag__factory(*freevars, ag__)`` that returns ``function_def`` converted (in place).

    ``function_def`` has its decorators, defaults and annotations removed (the caller gives the new
    function the original's defaults); ``freevars``: the original's free variables, whose cells the
    new function shares.
    """
    unsupported = unsupported_statement(function_def)
    if unsupported:
        raise ValueError(f"{unsupported} statement not yet supported")  # TF leaves such functions as they are
    function_def.decorator_list = []
    function_def.returns = None
    args = function_def.args
    args.defaults, args.kw_defaults = [], [None] * len(args.kwonlyargs)
    for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if arg is not None:
            arg.annotation = None
    positional = args.posonlyargs + args.args
    self_name = positional[0].arg if positional and "__class__" in freevars else None
    declared = _declared(function_def)
    prepare(function_def)
    liveness = Liveness()
    liveness.block(function_def.body, frozenset())
    function_def.body = _Converter(liveness, declared, self_name).block(function_def.body, tail=True, top=True)
    factory = _def("ag__factory", [*freevars, AG], [function_def, ast.Return(_load(function_def.name))])
    ast.copy_location(factory, function_def)
    module = ast.Module([factory], [])
    return ast.fix_missing_locations(module)
