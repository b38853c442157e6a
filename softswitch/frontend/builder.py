"""lark parse tree -> typed AST (`ast.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lark import Token, Transformer, v_args

from . import ast as A
from .errors import P4SyntaxError, Pos
from .literals import parse_int_literal

Locate = Callable[[int], tuple[str, int]]


def _is_tok(x: Any, kind: str | None = None) -> bool:
    return isinstance(x, Token) and (kind is None or x.type == kind)


@v_args(meta=True)
class AstBuilder(Transformer):
    """Builds AST nodes; `locate` maps a line of the preprocessed text to (file, line)."""

    def __init__(self, locate: Locate) -> None:
        super().__init__()
        self._locate = locate

    # ------------------------------------------------------------ helpers
    def _pos(self, meta: Any) -> Pos:
        line = getattr(meta, "line", None)
        if line is None:
            return Pos("<unknown>", 0, 0)
        f, ln = self._locate(line)
        return Pos(f, ln, meta.column)

    def _tpos(self, tok: Token) -> Pos:
        f, ln = self._locate(tok.line or 0)
        return Pos(f, ln, tok.column or 0)

    def _split_annots(self, children: list[Any]) -> tuple[A.Annots, list[Any]]:
        if children and isinstance(children[0], tuple) and children[0][:1] == ("annots",):
            return children[0][1], children[1:]
        return (), children

    # ------------------------------------------------------------ names and annotations
    def annotations(self, meta: Any, children: list[Token]) -> tuple[str, A.Annots]:
        out = []
        for tok in children:
            text = str(tok)
            name, body, structured = text, "", False
            # the body opens at the first bracket (`@a[k=(1)]` is a structured body)
            opens = [k for k in (text.find("("), text.find("[")) if k >= 0]
            if opens:
                k = min(opens)
                name, body, structured = text[:k], text[k + 1 : -1], text[k] == "["
            out.append(A.Annotation(name.strip(), body, self._tpos(tok), structured))
        return ("annots", tuple(out))

    def name(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def kw_name(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    nontype_name = name

    member = name
    property_name = name

    def type_name(self, meta: Any, c: list[Any]) -> A.NamedTypeRef:
        return A.NamedTypeRef(self._pos(meta), str(c[0]))

    def dot_type_name(self, meta: Any, c: list[Any]) -> A.NamedTypeRef:
        return A.NamedTypeRef(self._pos(meta), str(c[0]))

    def prefixed_nontype_name(self, meta: Any, c: list[Any]) -> str:
        return c[0]

    def dot_name(self, meta: Any, c: list[Any]) -> str:
        return "." + c[0]

    # ------------------------------------------------------------ types
    def specialized_type(self, meta: Any, c: list[Any]) -> A.NamedTypeRef:
        return A.NamedTypeRef(self._pos(meta), c[0].name, tuple(c[1]))

    def type_arg_list(self, meta: Any, c: list[Any]) -> list[A.TypeRef]:
        return c

    def dont_care_type(self, meta: Any, c: list[Any]) -> A.TypeRef:
        return A.SimpleTypeRef(self._pos(meta), "_")

    def void_type(self, meta: Any, c: list[Any]) -> A.TypeRef:
        return A.SimpleTypeRef(self._pos(meta), "void")

    def header_stack_type(self, meta: Any, c: list[Any]) -> A.TypeRef:
        return A.StackTypeRef(self._pos(meta), c[0], c[1])

    def tuple_type(self, meta: Any, c: list[Any]) -> A.TypeRef:
        return A.TupleTypeRef(self._pos(meta), tuple(c[0]))

    def _simple(kind: str) -> Callable[..., A.TypeRef]:  # type: ignore[misc]
        def f(self: AstBuilder, meta: Any, c: list[Any]) -> A.TypeRef:
            return A.SimpleTypeRef(self._pos(meta), kind)

        return f

    bool_type = _simple("bool")
    error_type = _simple("error")
    match_kind_type = _simple("match_kind")
    string_type = _simple("string")
    int_infinite_type = _simple("int")

    def bit_one_type(self, meta: Any, c: list[Any]) -> A.TypeRef:
        return A.BitTypeRef(self._pos(meta), None)

    def bit_type(self, meta: Any, c: list[Any]) -> A.TypeRef:
        return A.BitTypeRef(self._pos(meta), c[0])

    def int_type(self, meta: Any, c: list[Any]) -> A.TypeRef:
        return A.BitTypeRef(self._pos(meta), c[0], signed=True)

    def varbit_type(self, meta: Any, c: list[Any]) -> A.TypeRef:
        return A.VarbitTypeRef(self._pos(meta), c[0])

    def width_literal(self, meta: Any, c: list[Any]) -> A.Expr:
        return self._int(c[0])

    def type_params(self, meta: Any, c: list[Any]) -> tuple[str, ...]:
        return tuple(c)

    # ------------------------------------------------------------ parameters
    def parameter_list(self, meta: Any, c: list[Any]) -> tuple[A.Param, ...]:
        return tuple(c)

    def direction(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def parameter(self, meta: Any, c: list[Any]) -> A.Param:
        annots, rest = self._split_annots(c)
        direction = ""
        if isinstance(rest[0], str) and rest[0] in ("in", "out", "inout"):
            direction, rest = rest[0], rest[1:]
        default = rest[2] if len(rest) > 2 else None
        return A.Param(self._pos(meta), direction, rest[0], rest[1], default, annots)

    # ------------------------------------------------------------ type declarations
    def _struct_like(self, kind: str, meta: Any, c: list[Any]) -> A.StructLikeDecl:
        annots, rest = self._split_annots(c)
        name = rest[0]
        tps: tuple[str, ...] = ()
        fields = rest[1:]
        if fields and isinstance(fields[0], tuple):
            tps, fields = fields[0], fields[1:]
        return A.StructLikeDecl(self._pos(meta), name, kind, tuple(fields), annots, tps)

    def header_decl(self, meta: Any, c: list[Any]) -> A.StructLikeDecl:
        return self._struct_like("header", meta, c)

    def header_union_decl(self, meta: Any, c: list[Any]) -> A.StructLikeDecl:
        return self._struct_like("header_union", meta, c)

    def struct_decl(self, meta: Any, c: list[Any]) -> A.StructLikeDecl:
        return self._struct_like("struct", meta, c)

    def struct_field(self, meta: Any, c: list[Any]) -> A.FieldDecl:
        annots, rest = self._split_annots(c)
        return A.FieldDecl(self._pos(meta), rest[0], rest[1], annots)

    def enum_decl(self, meta: Any, c: list[Any]) -> A.EnumDecl:
        annots, rest = self._split_annots(c)
        return A.EnumDecl(self._pos(meta), rest[0], tuple(rest[1:]), annotations=annots)

    def ser_enum_decl(self, meta: Any, c: list[Any]) -> A.EnumDecl:
        annots, rest = self._split_annots(c)
        members = tuple(m[0] for m in rest[2:])
        values = tuple(m[1] for m in rest[2:])
        return A.EnumDecl(self._pos(meta), rest[1], members, rest[0], values, annots)

    def specified_id(self, meta: Any, c: list[Any]) -> tuple[str, A.Expr]:
        return (c[0], c[1])

    def typedef_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        rest = [x for x in rest if not _is_tok(x, "KW_TYPEDEF")]
        target = rest[0]
        if isinstance(target, A.Decl):  # typedef struct {...} name;
            return A.TypedefDecl(
                self._pos(meta), rest[1], A.NamedTypeRef(target.pos, target.name), False, annots
            )
        return A.TypedefDecl(self._pos(meta), rest[1], target, False, annots)

    def newtype_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        rest = [x for x in rest if not _is_tok(x, "KW_TYPE")]
        return A.TypedefDecl(self._pos(meta), rest[1], rest[0], True, annots)

    def error_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.ErrorDecl(self._pos(meta), "error", tuple(c))

    def match_kind_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        return A.MatchKindDecl(self._pos(meta), "match_kind", tuple(c))

    def _block_type(self, kind: str, meta: Any, c: list[Any]) -> A.BlockTypeDecl:
        annots, rest = self._split_annots(c)
        tps = rest[1] if len(rest) > 2 else ()
        return A.BlockTypeDecl(self._pos(meta), rest[0], kind, tps, rest[-1], annots)

    def parser_type_decl(self, meta: Any, c: list[Any]) -> A.BlockTypeDecl:
        return self._block_type("parser", meta, c)

    def control_type_decl(self, meta: Any, c: list[Any]) -> A.BlockTypeDecl:
        return self._block_type("control", meta, c)

    def package_type_decl(self, meta: Any, c: list[Any]) -> A.BlockTypeDecl:
        return self._block_type("package", meta, c)

    # ------------------------------------------------------------ externs and functions
    def function_prototype(self, meta: Any, c: list[Any]) -> A.Prototype:
        tps = c[2] if len(c) > 3 else ()
        return A.Prototype(self._pos(meta), c[0], c[1], tps, c[-1])

    def method_proto(self, meta: Any, c: list[Any]) -> A.Prototype:
        annots, rest = self._split_annots(c)
        p: A.Prototype = rest[0]
        p.annotations = annots
        return p

    def abstract_method_proto(self, meta: Any, c: list[Any]) -> A.Prototype:
        p = self.method_proto(meta, c)
        p.abstract = True
        return p

    def constructor_proto(self, meta: Any, c: list[Any]) -> tuple[str, tuple[A.Param, ...]]:
        _annots, rest = self._split_annots(c)
        return ("ctor", rest[1])

    def extern_object_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        name = str(rest[0])
        tps: tuple[str, ...] = ()
        items = rest[1:]
        if items and isinstance(items[0], tuple) and items[0][:1] != ("ctor",):
            tps, items = items[0], items[1:]
        ctors = tuple(x[1] for x in items if isinstance(x, tuple))
        methods = tuple(x for x in items if isinstance(x, A.Prototype))
        return A.ExternDecl(self._pos(meta), name, tps, ctors, methods, annots)

    def extern_function_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        p: A.Prototype = rest[0]
        p.annotations = annots
        return A.ExternFunctionDecl(self._pos(meta), p.name, p)

    def function_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        p: A.Prototype = rest[0]
        p.annotations = annots
        return A.FunctionDecl(self._pos(meta), p.name, p, rest[1])

    # ------------------------------------------------------------ constants, variables, instances
    def constant_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        return A.ConstantDecl(self._pos(meta), rest[1], rest[0], rest[2], annots)

    def variable_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        init = rest[2] if len(rest) > 2 else None
        return A.VariableDecl(self._pos(meta), rest[1], rest[0], init, annots)

    def instantiation(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        init = tuple(rest[3]) if len(rest) > 3 else ()
        return A.Instance(self._pos(meta), rest[2], rest[0], tuple(rest[1]), annots, init)

    def obj_initializer(self, meta: Any, c: list[Any]) -> list[A.Decl]:
        return c

    def empty_decl(self, meta: Any, c: list[Any]) -> None:
        return None

    # ------------------------------------------------------------ parsers
    def ctor_params(self, meta: Any, c: list[Any]) -> tuple[str, tuple[A.Param, ...]]:
        return ("ctor_params", c[0])

    def _block_parts(self, c: list[Any]) -> tuple[A.Annots, str, tuple, tuple, tuple, list]:
        annots, rest = self._split_annots(c)
        name = rest[0]
        i = 1
        tps: tuple[str, ...] = ()
        # type parameters are never empty: an empty tuple is the (empty) parameter list
        if isinstance(rest[i], tuple) and rest[i] and isinstance(rest[i][0], str):
            if not (rest[i] and rest[i][0] == "ctor_params"):
                tps = rest[i]
                i += 1
        params = rest[i]
        i += 1
        ctor: tuple[A.Param, ...] = ()
        if i < len(rest) and isinstance(rest[i], tuple) and rest[i][:1] == ("ctor_params",):
            ctor = rest[i][1]
            i += 1
        return annots, name, tps, params, ctor, rest[i:]

    def parser_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, name, tps, params, ctor, body = self._block_parts(c)
        locals_ = tuple(x for x in body if not isinstance(x, A.ParserState))
        states = tuple(x for x in body if isinstance(x, A.ParserState))
        return A.ParserDecl(self._pos(meta), name, tps, params, ctor, locals_, states, annots)

    def value_set_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        return A.ValueSetDecl(self._pos(meta), rest[2], rest[0], rest[1], annots)

    def parser_state(self, meta: Any, c: list[Any]) -> A.ParserState:
        annots, rest = self._split_annots(c)
        rest = [x for x in rest if not _is_tok(x, "KW_STATE")]
        name = rest[0]
        trans: Any = None
        stmts = rest[1:]
        if stmts and isinstance(stmts[-1], tuple) and stmts[-1][:1] == ("transition",):
            trans = stmts[-1][1]
            stmts = stmts[:-1]
        return A.ParserState(
            self._pos(meta), name, tuple(_as_stmt(s) for s in stmts), trans, annots
        )

    def transition_statement(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("transition", c[0])

    def transition_name(self, meta: Any, c: list[Any]) -> str:
        return c[0]

    def select_expression(self, meta: Any, c: list[Any]) -> A.Select:
        return A.Select(self._pos(meta), tuple(c[0]), tuple(c[1:]))

    def select_case(self, meta: Any, c: list[Any]) -> A.SelectCase:
        return A.SelectCase(self._pos(meta), c[0], c[1])

    def tuple_keyset(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.TupleKeyset(self._pos(meta), tuple(c))

    def mask_keyset(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.MaskKeyset(self._pos(meta), c[0], c[1])

    def range_keyset(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.RangeKeyset(self._pos(meta), c[0], c[1])

    def default_keyset(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.DefaultKeyset(self._pos(meta))

    def dontcare_keyset(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.DontCare(self._pos(meta))

    # ------------------------------------------------------------ controls and tables
    def control_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, name, tps, params, ctor, body = self._block_parts(c)
        body = [x for x in body if not _is_tok(x, "KW_APPLY")]
        apply_block = body[-1]
        return A.ControlDecl(
            self._pos(meta), name, tps, params, ctor, tuple(body[:-1]), apply_block, annots
        )

    def action_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        return A.ActionDecl(self._pos(meta), rest[0], rest[1], rest[2], annots)

    def table_decl(self, meta: Any, c: list[Any]) -> A.Decl:
        annots, rest = self._split_annots(c)
        name = rest[0]
        keys: tuple[A.KeyElement, ...] = ()
        actions: tuple[A.ActionRef, ...] = ()
        entries = None
        entries_const = False
        props: list[A.TableProperty] = []
        for p in rest[1:]:
            tag = p[0]
            if tag == "key":
                keys = p[1]
            elif tag == "actions":
                actions = p[1]
            elif tag == "entries":
                entries, entries_const = p[1], p[2]
            else:
                props.append(p[1])
        return A.TableDecl(
            self._pos(meta), name, keys, actions, entries, entries_const, tuple(props), annots
        )

    def key_property(self, meta: Any, c: list[Any]) -> tuple[str, tuple]:
        return ("key", tuple(x for x in c if isinstance(x, A.KeyElement)))

    def key_element(self, meta: Any, c: list[Any]) -> A.KeyElement:
        annots = c[2][1] if len(c) > 2 else ()
        return A.KeyElement(self._pos(meta), c[0], c[1], annots)

    def actions_property(self, meta: Any, c: list[Any]) -> tuple[str, tuple]:
        return ("actions", tuple(x for x in c if isinstance(x, A.ActionRef)))

    def action_ref(self, meta: Any, c: list[Any]) -> A.ActionRef:
        annots, rest = self._split_annots(c)
        args = tuple(rest[1]) if len(rest) > 1 else ()
        return A.ActionRef(self._pos(meta), rest[0], args, annots)

    def action_call(self, meta: Any, c: list[Any]) -> A.ActionRef:
        args = tuple(c[1]) if len(c) > 1 else ()
        return A.ActionRef(self._pos(meta), c[0], args)

    def const_kw(self, meta: Any, c: list[Any]) -> str:
        return "const"

    def entries_property(self, meta: Any, c: list[Any]) -> tuple[str, tuple, bool]:
        _annots, c = self._split_annots(c)
        const = bool(c) and c[0] == "const"
        return ("entries", tuple(x for x in c if isinstance(x, A.TableEntryDecl)), const)

    def entry(self, meta: Any, c: list[Any]) -> A.TableEntryDecl:
        c = [x for x in c if not _is_tok(x, "KW_PRIORITY")]
        is_const = bool(c) and c[0] == "const"
        if is_const:
            c = c[1:]
        prio = None
        if len(c) >= 3 and not isinstance(c[2], tuple):
            prio, c = c[0], c[1:]
        annots = c[2][1] if len(c) > 2 else ()
        return A.TableEntryDecl(self._pos(meta), c[0], c[1], prio, annots, is_const)

    def simple_property(self, meta: Any, c: list[Any]) -> tuple[str, A.TableProperty]:
        annots, rest = self._split_annots(c)
        const = rest[0] == "const"
        if const:
            rest = rest[1:]
        return ("prop", A.TableProperty(self._pos(meta), rest[0], rest[1], const, annots))

    # ------------------------------------------------------------ statements
    def block_statement(self, meta: Any, c: list[Any]) -> A.Block:
        annots, rest = self._split_annots(c)
        return A.Block(self._pos(meta), tuple(_as_stmt(s) for s in rest), annots)

    def assignment_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Assign(self._pos(meta), c[0], c[1])

    def compound_assignment(self, meta: Any, c: list[Any]) -> A.Stmt:
        pos = self._pos(meta)
        op = str(c[1])[:-1]
        return A.Assign(pos, c[0], A.Binary(pos, op, c[0], c[2]))

    def method_call_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        targs: tuple[A.TypeRef, ...] = ()
        if len(c) == 3:
            targs = tuple(c[1])
        call = A.Call(self._pos(meta), c[0], targs, tuple(c[-1]))
        return A.CallStmt(self._pos(meta), call)

    def direct_application(self, meta: Any, c: list[Any]) -> A.Stmt:
        pos = self._pos(meta)
        func = A.Member(pos, A.TypeNameExpr(pos, c[0]), "apply")
        return A.CallStmt(pos, A.Call(pos, func, (), tuple(c[-1])))

    def conditional_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        other = _as_stmt(c[2]) if len(c) > 2 else None
        return A.If(self._pos(meta), c[0], _as_stmt(c[1]), other)

    def exit_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Exit(self._pos(meta))

    def return_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Return(self._pos(meta), c[0] if c else None)

    def for_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        init, rest = c[0], c[1:]
        cond = rest[0] if len(rest) == 3 else None
        return A.For(self._pos(meta), tuple(init), cond, tuple(rest[-2]), _as_stmt(rest[-1]))

    def for_in_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        _annots, rest = self._split_annots(c)
        rest = [x for x in rest if not _is_tok(x, "KW_IN")]
        return A.ForIn(self._pos(meta), rest[0], rest[1], rest[2], _as_stmt(rest[3]))

    def for_range_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        _annots, rest = self._split_annots(c)
        rest = [x for x in rest if not _is_tok(x, "KW_IN")]
        rng = A.RangeKeyset(self._pos(meta), rest[2], rest[3])
        return A.ForIn(self._pos(meta), rest[0], rest[1], rng, _as_stmt(rest[4]))

    def for_init_list(self, meta: Any, c: list[Any]) -> list[A.Stmt]:
        return c

    for_update_list = for_init_list

    def for_var_decl(self, meta: Any, c: list[Any]) -> A.Stmt:
        annots, rest = self._split_annots(c)
        return A.VarDecl(self._pos(meta), rest[0], rest[1], rest[2], annots)

    def for_assign(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Assign(self._pos(meta), c[0], c[1])

    def for_call(self, meta: Any, c: list[Any]) -> A.Stmt:
        call = A.Call(self._pos(meta), c[0], (), tuple(c[1]))
        return A.CallStmt(self._pos(meta), call)

    def break_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Break(self._pos(meta))

    def continue_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Continue(self._pos(meta))

    def empty_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.EmptyStmt(self._pos(meta))

    def switch_statement(self, meta: Any, c: list[Any]) -> A.Stmt:
        return A.Switch(self._pos(meta), c[0], tuple(c[1:]))

    def switch_case(self, meta: Any, c: list[Any]) -> A.SwitchCase:
        return A.SwitchCase(self._pos(meta), c[0], c[1] if len(c) > 1 else None)

    def switch_name_label(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.NameRef(self._pos(meta), c[0])

    def switch_default_label(self, meta: Any, c: list[Any]) -> None:
        return None

    def switch_int_label(self, meta: Any, c: list[Any]) -> A.Expr:
        return self._int(c[0])

    def switch_neg_int_label(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Unary(self._pos(meta), "-", self._int(c[0]))

    def switch_member_label(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Member(self._pos(meta), A.TypeNameExpr(self._pos(meta), c[0]), c[1])

    # lvalues
    def lvalue_name(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.NameRef(self._pos(meta), c[0])

    def lvalue_member(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Member(self._pos(meta), c[0], c[1])

    def lvalue_index(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Index(self._pos(meta), c[0], c[1])

    def lvalue_slice(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Slice(self._pos(meta), c[0], c[1], c[2])

    def this_ref(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.This(self._pos(meta))

    def type_args(self, meta: Any, c: list[Any]) -> list[A.TypeRef]:
        return c[0]

    # ------------------------------------------------------------ expressions
    def argument_list(self, meta: Any, c: list[Any]) -> list[A.Argument]:
        return [x if isinstance(x, A.Argument) else A.Argument(x.pos, None, x) for x in c]

    def named_argument(self, meta: Any, c: list[Any]) -> A.Argument:
        return A.Argument(self._pos(meta), c[0], c[1])

    def dontcare_argument(self, meta: Any, c: list[Any]) -> A.Argument:
        return A.Argument(self._pos(meta), None, None)

    def expression_list(self, meta: Any, c: list[Any]) -> list[A.Expr]:
        return c

    def conditional(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Conditional(self._pos(meta), c[0], c[1], c[2])

    def _binary(op: str) -> Callable[..., A.Expr]:  # type: ignore[misc]
        def f(self: AstBuilder, meta: Any, c: list[Any]) -> A.Expr:
            return A.Binary(self._pos(meta), op, c[0], c[-1])

        return f

    lor_op = _binary("||")
    land_op = _binary("&&")
    eq_op = _binary("==")
    ne_op = _binary("!=")
    le_op = _binary("<=")
    ge_op = _binary(">=")
    lt_op = _binary("<")
    gt_op = _binary(">")
    bor_op = _binary("|")
    bxor_op = _binary("^")
    band_op = _binary("&")
    shl_op = _binary("<<")
    shr_op = _binary(">>")
    add_op = _binary("+")
    sub_op = _binary("-")
    sat_add_op = _binary("|+|")
    sat_sub_op = _binary("|-|")
    concat_op = _binary("++")
    mul_op = _binary("*")
    div_op = _binary("/")
    mod_op = _binary("%")

    def _unary(op: str) -> Callable[..., A.Expr]:  # type: ignore[misc]
        def f(self: AstBuilder, meta: Any, c: list[Any]) -> A.Expr:
            return A.Unary(self._pos(meta), op, c[0])

        return f

    lnot_op = _unary("!")
    bnot_op = _unary("~")
    neg_op = _unary("-")
    pos_op = _unary("+")

    def cast(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Cast(self._pos(meta), c[0], c[1])

    def member_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Member(self._pos(meta), c[0], c[1])

    def type_member_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Member(self._pos(meta), A.TypeNameExpr(c[0].pos, c[0]), c[1])

    def index_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Index(self._pos(meta), c[0], c[1])

    def slice_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Slice(self._pos(meta), c[0], c[1], c[2])

    def call_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Call(self._pos(meta), c[0], (), tuple(c[-1]))

    def generic_call_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        c = [x for x in c if not _is_tok(x, "_L_ANGLE_ARGS") and not _is_tok(x, "_R_ANGLE_SHIFT")]
        return A.Call(self._pos(meta), c[0], tuple(c[1]), tuple(c[2]))

    def type_ref_call(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.Construct(self._pos(meta), c[0], tuple(c[1]))

    def _int(self, tok: Token) -> A.IntLit:
        pos = self._tpos(tok)
        try:
            value, width, signed, base = parse_int_literal(str(tok))
        except ValueError as e:
            raise P4SyntaxError.at(pos, str(e)) from None
        return A.IntLit(pos, value, width, signed, base)

    def int_literal(self, meta: Any, c: list[Any]) -> A.Expr:
        return self._int(c[0])

    def true_literal(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.BoolLit(self._pos(meta), True)

    def false_literal(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.BoolLit(self._pos(meta), False)

    def string_literal(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.StrLit(self._pos(meta), str(c[0])[1:-1])

    def name_ref(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.NameRef(self._pos(meta), c[0])

    def dot_name_ref(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.NameRef(self._pos(meta), c[0])

    def list_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.ListExpr(self._pos(meta), tuple(c[0]))

    def struct_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.StructExpr(self._pos(meta), tuple(c))

    def named_expression(self, meta: Any, c: list[Any]) -> tuple[str, A.Expr]:
        return (c[0], c[1])

    def error_member(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.ErrorMember(self._pos(meta), c[0])

    def invalid_header_expr(self, meta: Any, c: list[Any]) -> A.Expr:
        return A.InvalidHeader(self._pos(meta))

    def start(self, meta: Any, c: list[Any]) -> A.Program:
        return A.Program(tuple(x for x in c if x is not None))


def _as_stmt(x: Any) -> A.Stmt:
    """Declarations inside blocks become statements."""
    if isinstance(x, A.VariableDecl):
        return A.VarDecl(x.pos, x.type_ref, x.name, x.init, x.annotations)
    if isinstance(x, A.ConstantDecl):
        return A.ConstDecl(x.pos, x.type_ref, x.name, x.value, x.annotations)
    if isinstance(x, A.Instance):
        return x  # type: ignore[return-value]  # instances in blocks are rejected later
    return x
