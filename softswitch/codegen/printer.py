"""Expressions printed back as P4 source, as p4c names table keys in P4Info."""

from __future__ import annotations

from ..frontend import ast as A


def expr_text(e: A.Expr) -> str:  # noqa: C901
    if isinstance(e, A.NameRef):
        return e.name
    if isinstance(e, A.Member):
        if isinstance(e.base, A.TypeNameExpr) and isinstance(e.base.ref, A.NamedTypeRef):
            return f"{e.base.ref.name}.{e.name}"
        return f"{expr_text(e.base)}.{e.name}"
    if isinstance(e, A.Index):
        return f"{expr_text(e.base)}[{expr_text(e.index)}]"
    if isinstance(e, A.Slice):
        return f"{expr_text(e.base)}[{expr_text(e.hi)}:{expr_text(e.lo)}]"
    if isinstance(e, A.Call):
        if isinstance(e.func, A.Member) and e.func.name == "isValid" and not e.args:
            return f"{expr_text(e.func.base)}.$valid$"  # p4c's name for validity keys
        args = ", ".join(expr_text(a.value) if a.value is not None else "_" for a in e.args)
        return f"{expr_text(e.func)}({args})"
    if isinstance(e, A.IntLit):
        # as p4c names it: in the base it was written in, without its width (8w0x1A is
        # 0x1a, 8w10 is 10)
        return f"0x{e.value:x}" if e.base == 16 else str(e.value)
    if isinstance(e, A.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, A.Binary):
        return f"{expr_text(e.left)} {e.op} {expr_text(e.right)}"
    if isinstance(e, A.Unary):
        return f"{e.op}{expr_text(e.operand)}"
    if isinstance(e, A.Cast):
        return f"({_type_text(e.to)}){expr_text(e.operand)}"
    if isinstance(e, A.ErrorMember):
        return f"error.{e.name}"
    return type(e).__name__


def _type_text(t: A.TypeRef) -> str:
    if isinstance(t, A.BitTypeRef):
        w = expr_text(t.width) if t.width is not None else "1"
        return f"{'int' if t.signed else 'bit'}<{w}>"
    if isinstance(t, A.NamedTypeRef):
        return t.name
    if isinstance(t, A.SimpleTypeRef):
        return t.kind
    return "?"
