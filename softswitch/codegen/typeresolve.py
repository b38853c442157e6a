"""Type references -> semantic types, and the Python classes for headers and structs."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ..frontend import ast as A
from ..frontend import types as T
from ..frontend.errors import P4TypeError, P4Unsupported
from .emitter import Emitter
from .layout import Layout, header_layout
from .structured import annots_ir
from .symbols import TypeSym
from .values import field_py, header_field_ok, mask, wrap_value

if TYPE_CHECKING:
    from .parts import Parts
    from .state import GenState


def _leaves(path: str, st: T.StructLikeType) -> list[tuple[str, T.P4Type]]:
    """(python path, type) of the scalar fields of a header, structs flattened in order."""
    out: list[tuple[str, T.P4Type]] = []
    for n, t in st.fields.items():
        t0 = T.strip_newtype(t)
        if isinstance(t0, T.StructLikeType):
            out.extend(_leaves(f"{path}.{field_py(n)}", t0))
        else:
            out.append((f"{path}.{field_py(n)}", t))
    return out


class Types:
    """The types part of the generator: type references -> semantic types, declarations of
    types, and the Python classes headers and structs become (zero values, copies)."""

    __slots__ = ("gen", "st")

    def __init__(self, st: GenState, gen: Parts) -> None:
        self.st = st
        self.gen = gen  # the other parts

    def resolve_type(self, ref: A.TypeRef) -> T.P4Type:
        if isinstance(ref, A.BitTypeRef):
            if ref.width is None:
                return T.BitType(1, ref.signed)
            w = self.gen.exprs.const_int(ref.width)
            if w < 0 or (ref.signed and w == 0):
                raise P4TypeError.at(ref.pos, f"invalid width {w}")
            _check_width(w, ref)
            return T.BitType(w, ref.signed)
        if isinstance(ref, A.VarbitTypeRef):
            return T.VarbitType(self.gen.exprs.const_int(ref.width))
        if isinstance(ref, A.SimpleTypeRef):
            match ref.kind:
                case "bool":
                    return T.BOOL
                case "error":
                    return self.st.error_type
                case "match_kind":
                    return self.st.match_kind_type
                case "string":
                    return T.STRING
                case "int":
                    return T.INT
                case "void":
                    return T.VOID
                case "_":
                    return T.DONTCARE
        if isinstance(ref, A.StackTypeRef):
            elem = self.resolve_type(ref.element)
            if not isinstance(elem, T.StructLikeType) or elem.kind == "struct":
                raise P4TypeError.at(ref.pos, f"stack element {elem} must be a header")
            return T.StackType(elem, self.gen.exprs.const_int(ref.size))
        if isinstance(ref, A.TupleTypeRef):
            return T.TupleType(tuple(self.resolve_type(a) for a in ref.args))
        if isinstance(ref, A.NamedTypeRef):
            if ref in self.st.type_var_refs:
                return T.TypeVar(ref.name)
            sym = self.st.scope.lookup(ref.name)
            if not isinstance(sym, TypeSym):
                raise P4TypeError.at(ref.pos, f"{ref.name}: unknown type")
            t = sym.type
            if isinstance(t, T.StructLikeType) and t.name in self.st.odd_headers:
                raise self.st.odd_headers[t.name]
            if ref.args and isinstance(t, T.ExternType):
                args = tuple(self.resolve_type(a) for a in ref.args)
                return T.ExternType(t.name, t.decl, args)
            return t
        raise P4Unsupported.at(ref.pos, f"type {ref!r}")

    # ------------------------------------------------------------ declarations of types
    def declare_struct(self, d: A.StructLikeDecl) -> None:
        fields: dict[str, T.P4Type] = {}
        st = T.StructLikeType(d.kind, d.name, fields, "", d.annotations)
        self.st.scope.define(d.name, TypeSym(st))
        for f in d.fields:
            ft = self.resolve_type(f.type_ref)
            if d.kind == "header" and not header_field_ok(ft):
                raise P4TypeError.at(f.pos, f"header field {f.name} cannot have type {ft}")
            if d.kind == "header_union" and not (isinstance(ft, T.StructLikeType) and ft.is_header):
                raise P4TypeError.at(f.pos, "header_union fields must be headers")
            if f.name in fields:
                raise P4TypeError.at(f.pos, f"duplicate field {f.name}")
            fields[f.name] = ft
        if d.kind == "header":
            width = sum(T.width_of(t) for t in fields.values())
            if width % 8 and not any(isinstance(t, T.VarbitType) for t in fields.values()):
                # refused where the type is used, as p4c-bm2-ss refuses only the header
                # types a program instantiates (an unused @controller_header may be odd)
                self.st.odd_headers[d.name] = P4Unsupported.at(
                    d.pos,
                    f"header {d.name} has fields totaling {width} bits: this target (as BMv2) "
                    "only supports headers of a multiple of 8 bits",
                )
        st.pyname = self.st.unique("H_" + d.name)
        self.st.field_annotations[d.name] = {f.name: f.annotations for f in d.fields}
        self.emit_struct_class(st)

    def _zero_fields(
        self, out: Emitter, st: T.StructLikeType, temps: Iterator[int]
    ) -> list[tuple[str, str]]:
        """(attribute, code) of each field of a zero `st`. Headers and structs inside are
        built by lines emitted here (no __init__ call each: a program's header struct is
        made for every packet)."""
        parts: list[tuple[str, str]] = []
        for n, t in st.fields.items():
            ft = T.strip_newtype(t)
            if _inlinable(ft):
                assert isinstance(ft, T.StructLikeType)
                parts.append((field_py(n), self._inline_new(out, ft, temps)))
            else:
                parts.append((field_py(n), self.zero_code(t)))
        return parts

    def _reset_fields(
        self,
        out: Emitter,
        var: str,
        st: T.StructLikeType,
        temps: Iterator[int],
        valid_only: bool = False,
    ) -> None:
        """Emit the lines that make the object in `var` (of `st`) what `__init__` makes,
        zeroing the headers and structs it holds in place (with `valid_only`, the headers
        it holds only when valid: an invalid one is known to hold zeros)."""
        for n, t in st.fields.items():
            self._reset_field(out, var, n, t, temps, valid_only)
        if st.is_header:
            out.line(f"{var}._v = False")
            if _varbit_header(st):
                out.line(f"{var}._vw = 0")

    def _reset_field(
        self,
        out: Emitter,
        var: str,
        n: str,
        t: T.P4Type,
        temps: Iterator[int],
        valid_only: bool,
    ) -> None:
        """`_reset_fields` for the field `n` (of type `t`) of the object in `var`."""
        ft = T.strip_newtype(t)
        if _inlinable(ft) or _varbit_header(ft):
            assert isinstance(ft, T.StructLikeType)
            inner = f"_o{next(temps)}"
            if valid_only and ft.is_header:
                # most headers are invalid: test before taking the header in a local
                out.line(f"if {var}.{field_py(n)}._v:")
                with out.indent():
                    out.line(f"{inner} = {var}.{field_py(n)}")
                    self._reset_fields(out, inner, ft, temps)
            else:
                out.line(f"{inner} = {var}.{field_py(n)}")
                self._reset_fields(out, inner, ft, temps, valid_only)
        else:
            out.line(f"{var}.{field_py(n)} = {self.zero_code(t)}")

    def deparse_reset(self, st: T.StructLikeType, emitted: list[str]) -> str | None:
        """A module-level function `f(buf, hdr)` for a deparser that emits, in order, the
        headers `emitted` (field names of the struct `st`, each once) and nothing else:
        it appends each valid one to `buf` as the deparser does and makes it zero and
        invalid at once, then zeroes the valid headers among the fields it does not emit,
        leaving `hdr` as `_reset_valid` would (the switch reuses a finished packet's
        headers: one validity test per header instead of two). The name of `f`; None
        when some emitted field is not a header the generator resets in place."""
        for n in emitted:
            ft = T.strip_newtype(st.fields[n])
            if not (isinstance(ft, T.StructLikeType) and ft.is_header and not ft.is_union):
                return None
            if not (_inlinable(ft) or _varbit_header(ft)):
                return None
        name = self.st.unique(f"_deparse_reset_{st.pyname}")
        out = Emitter()
        temps = itertools.count()
        out.line(f"def {name}(buf, hdr):")
        with out.indent():
            for n in emitted:
                ft = T.strip_newtype(st.fields[n])
                assert isinstance(ft, T.StructLikeType)
                out.line(f"if hdr.{field_py(n)}._v:")
                with out.indent():
                    out.line(f"_h = hdr.{field_py(n)}")
                    packed = self.pack_struct_code(ft, "_h")
                    if _varbit_header(ft):
                        out.line("_emit_varbit(buf, _h)")
                    elif packed is not None:
                        out.line(f"buf += {packed}")
                    else:
                        out.line(f"buf += _h._pack().to_bytes({(ft.bit_width() + 7) // 8}, 'big')")
                    self._reset_fields(out, "_h", ft, temps)
            for n, t in st.fields.items():
                if n not in emitted:
                    self._reset_field(out, "hdr", n, t, temps, True)
        out.line("")
        self.st.classes.extend(out)
        return name

    def _inline_new(self, out: Emitter, st: T.StructLikeType, temps: Iterator[int]) -> str:
        """Emit the lines that build a zero `st` object; return the variable holding it."""
        var = f"_o{next(temps)}"
        parts = self._zero_fields(out, st, temps)
        out.line(f"{var} = _new({st.pyname})")
        for name, code in parts:
            out.line(f"{var}.{name} = {code}")
        if st.is_header:
            out.line(f"{var}._v = False")
        return var

    def emit_struct_class(self, st: T.StructLikeType) -> None:
        out = Emitter()
        names = [field_py(n) for n in st.fields]
        slots = [*names, "_v"] if st.is_header else names
        if st.is_header and any(isinstance(t, T.VarbitType) for t in st.fields.values()):
            slots.append("_vw")
        out.line(f"class {st.pyname}:")
        with out.indent():
            out.line(f"__slots__ = {tuple(slots)!r}")
            out.line(f"_p4name = {st.name!r}")
            out.line(f"_kind = {st.kind!r}")
            out.line(f"_fields = {tuple(st.fields)!r}")
            if st.is_header:
                out.line(f"_widths = {tuple(T.width_of(t) for t in st.fields.values())!r}")
                out.line(f"_signed = {tuple(self._signed(t) for t in st.fields.values())!r}")
                out.line(f"_bytes = {(st.bit_width() + 7) // 8}")
                vb = tuple(
                    i for i, t in enumerate(st.fields.values()) if isinstance(t, T.VarbitType)
                )
                if vb:
                    out.line(f"_varbit = {vb!r}")
            out.line("")
            out.line("def __init__(self):")
            with out.indent():
                for name, code in self._zero_fields(out, st, itertools.count()):
                    out.line(f"self.{name} = {code}")
                if st.is_header:
                    out.line("self._v = False")
                    if "_vw" in slots:
                        out.line("self._vw = 0")
            out.line("")
            if st.kind == "struct":
                # a struct made zero again in place (its inner headers and structs reused):
                # the switch recycles a finished packet's structs instead of building new ones
                out.line("def _reset(self):")
                with out.indent():
                    self._reset_fields(out, "self", st, itertools.count())
                    if not st.fields:
                        out.line("pass")
                out.line("")
                # the same when no invalid header can hold bits (the packet's code set no
                # ctx.dirty): only the valid headers are rewritten
                out.line("def _reset_valid(self):")
                with out.indent():
                    self._reset_fields(out, "self", st, itertools.count(), valid_only=True)
                    if not st.fields:
                        out.line("pass")
                out.line("")
            out.line("def _copy(self):")
            with out.indent():
                out.line(f"c = _new({st.pyname})")
                for n, t in st.fields.items():
                    out.line(f"c.{field_py(n)} = {self.copy_code('self.' + field_py(n), t)}")
                if st.is_header:
                    out.line("c._v = self._v")
                    if "_vw" in slots:
                        out.line("c._vw = self._vw")
                out.line("return c")
            if (st.is_header and "_vw" not in slots) or (
                st.kind == "struct"
                and header_field_ok(st)
                and not any(
                    isinstance(T.strip_newtype(t), T.VarbitType) for _, t in _leaves("", st)
                )
            ):
                out.line(f"_bits = {st.bit_width()}")
                if not st.is_header:
                    out.line(f"_bytes = {(st.bit_width() + 7) // 8}")
                self._emit_pack_unpack(out, st)
            if st.is_header:
                out.line("")
                out.line("def _sv(self):")
                with out.indent():
                    out.line("if not self._v:")
                    with out.indent():
                        for n, t in st.fields.items():
                            out.line(f"self.{field_py(n)} = {self.zero_code(t)}")
                        out.line("self._v = True")
        out.line("")
        lay = self.layout(st)
        if lay is not None:
            out.line(f"_st_{st.pyname} = _Struct({lay.fmt!r})")
            out.line("")
        self.st.classes.extend(out)

    def layout(self, st: T.StructLikeType) -> Layout | None:
        """The struct-module layout of a header with fixed fields (None: none fits)."""
        if not st.is_header or not st.fields:
            return None
        leaves = _leaves("", st)
        if any(isinstance(T.strip_newtype(t), T.VarbitType) for _, t in leaves):
            return None
        if st.bit_width() % 8:
            return None
        return header_layout([T.width_of(t) for _, t in leaves])

    def ext_struct_lines(
        self, st: T.StructLikeType, obj: str, data: str, off: str, temp: Callable[[], str]
    ) -> list[str] | None:
        """The statements that extract `obj` (of `st`) from `data` at byte `off` with its
        `_st_` Struct (None when it has no layout); the length was checked before."""
        lay = self.layout(st)
        if lay is None:
            return None
        leaves = _leaves(obj, st)
        items = [temp() for g in lay.groups for _ in g.items]
        lines = [
            f"{', '.join(items)}{',' if len(items) == 1 else ''} = "
            f"_st_{st.pyname}.unpack_from({data}, {off})"
        ]
        k = 0
        for g in lay.groups:
            names = items[k : k + len(g.items)]
            k += len(g.items)
            value = names[0]
            if len(names) > 1:  # a group of several struct items: one value
                parts, rest = [], 8 * g.nbytes
                for name, size in zip(names, g.items, strict=True):
                    rest -= 8 * size
                    parts.append(f"{name} << {rest}" if rest else name)
                value = f"({' | '.join(parts)})"
            if len(g.widths) > 1 and len(names) > 1:
                comb = temp()
                lines.append(f"{comb} = {value}")
                value = comb
            rest = 8 * g.nbytes
            for i, w in enumerate(g.widths):
                f, t = leaves[g.first + i]
                rest -= w
                if len(g.widths) == 1:
                    part = value
                else:
                    part = f"{value} >> {rest} & {mask(w)}" if rest else f"{value} & {mask(w)}"
                t0 = T.strip_newtype(t)
                if isinstance(t0, T.BoolType):
                    part = f"bool({part})"
                elif self._signed(t0):
                    part = f"_to_signed({part}, {w})"
                lines.append(f"{f} = {part}")
        lines.append(f"{obj}._v = True")
        return lines

    def pack_struct_code(self, st: T.StructLikeType, obj: str) -> str | None:
        """An expression for the bytes of header `obj` (of `st`) made with its `_st_`
        Struct (None when it has no layout)."""
        lay = self.layout(st)
        if lay is None:
            return None
        leaves = _leaves(obj, st)
        args: list[str] = []
        for g in lay.groups:
            terms, rest = [], 8 * g.nbytes
            for i, w in enumerate(g.widths):
                f, t = leaves[g.first + i]
                rest -= w
                t0 = T.strip_newtype(t)
                if isinstance(t0, T.BoolType):
                    v = f"int({f})"
                elif self._signed(t0):
                    v = f"({f} & {mask(w)})"
                else:
                    v = f
                terms.append(f"{v} << {rest}" if rest else v)
            value = " | ".join(terms)
            if len(g.items) == 1:
                args.append(value)
                continue
            value = f"({value})" if len(terms) > 1 else value
            rest = 8 * g.nbytes
            for size in g.items:
                rest -= 8 * size
                m = mask(8 * size)
                args.append(f"{value} >> {rest} & {m}" if rest else f"{value} & {m}")
        return f"_st_{st.pyname}.pack({', '.join(args)})"

    def ext_lines(self, st: T.StructLikeType, obj: str, v: str) -> list[str]:
        """The statements that set the fields of `obj` (of `st`) from its bits, the int `v`
        (the body of its `_ext`, which the parser writes out where it extracts)."""
        lines = self._unpack_pack(st, obj, v)[0]
        if st.is_header:
            lines.append(f"{obj}._v = True")
        return lines

    def _unpack_pack(
        self, st: T.StructLikeType, obj: str, v: str = "v"
    ) -> tuple[list[str], list[str]]:
        """The statements that set the fields of `obj` from the int `v` (without the
        validity) and the terms of `_pack()`."""
        total = st.bit_width()
        shift = total
        ext: list[str] = []
        pack: list[str] = []
        for f, t in _leaves(obj, st):
            w = T.width_of(t)
            shift -= w
            m = mask(w)
            part = f"{v} >> {shift} & {m}" if shift else f"{v} & {m}"
            t0 = T.strip_newtype(t)
            if isinstance(t0, T.BoolType):
                ext.append(f"{f} = bool({part})")
                pack.append(f"int({f}) << {shift}" if shift else f"int({f})")
            elif self._signed(t0):
                ext.append(f"{f} = _to_signed({part}, {w})")
                pack.append(f"({f} & {m}) << {shift}" if shift else f"({f} & {m})")
            else:
                ext.append(f"{f} = {part}")
                pack.append(f"{f} << {shift}" if shift else f)
        return ext, pack

    def _emit_pack_unpack(self, out: Emitter, st: T.StructLikeType) -> None:
        """`_ext(v)` sets the fields from the header's bits as one int; `_pack()` is the inverse."""
        ext, pack = self._unpack_pack(st, "self")
        out.line("")
        out.line("def _ext(self, v):")
        with out.indent():
            for ln in ext:
                out.line(ln)
            if st.is_header:
                out.line("self._v = True")
        out.line("")
        out.line("def _pack(self):")
        with out.indent():
            out.line(f"return {' | '.join(pack) or '0'}")

    @staticmethod
    def _signed(t: T.P4Type) -> bool:
        t = T.strip_newtype(t)
        return isinstance(t, T.BitType) and t.signed

    def zero_code(self, t: T.P4Type) -> str:
        """Python expression for the initial value of a variable of type t (BMv2: zeros)."""
        t = T.strip_newtype(t)
        if isinstance(t, T.BitType | T.IntLiteralType | T.VarbitType | T.ErrorType):
            return "0"
        if isinstance(t, T.BoolType):
            return "False"
        if isinstance(t, T.EnumType):
            return "0"
        if isinstance(t, T.StructLikeType):
            return f"{t.pyname}()"
        if isinstance(t, T.StackType):
            return f"_Stack({t.element.pyname}, {t.size})"
        if isinstance(t, T.TupleType):
            inner = ", ".join(self.zero_code(e) for e in t.elements)
            return f"({inner}{',' if len(t.elements) == 1 else ''})"
        if isinstance(t, T.StringType):
            return "''"
        return "None"

    def copy_code(self, code: str, t: T.P4Type) -> str:
        t = T.strip_newtype(t)
        if isinstance(t, T.StructLikeType | T.StackType):
            return f"{code}._copy()"
        if isinstance(t, T.TupleType) and any(
            isinstance(T.strip_newtype(e), T.StructLikeType | T.StackType) for e in t.elements
        ):
            return f"_copy_tuple({code})"
        return code

    def declare_enum(self, d: A.EnumDecl) -> None:
        if d.underlying is None:
            et = T.EnumType(d.name, d.members)
        else:
            ut = self.resolve_type(d.underlying)
            if not isinstance(ut, T.BitType):
                raise P4TypeError.at(d.pos, "serializable enums need a bit<W> or int<W> type")
            values = {}
            for m, e in zip(d.members, d.values, strict=True):
                values[m] = wrap_value(self.gen.exprs.const_int(e), ut)
            et = T.EnumType(d.name, d.members, ut, values)
        self.st.scope.define(d.name, TypeSym(et))

    def declare_typedef(self, d: A.TypedefDecl) -> None:
        base = self.resolve_type(d.type_ref)
        if d.newtype:
            annots = annots_ir(d.annotations, self.gen.exprs)
            self.st.scope.define(d.name, TypeSym(T.NewType(d.name, base, annots)))
        else:
            self.st.scope.define(d.name, TypeSym(base))
        self.st.type_names[d.name] = base


def _varbit_header(t: T.P4Type) -> bool:
    """A header with a varbit field and otherwise plain fields: zeroed in place as the
    others are, its varbit's current width (`_vw`) included."""
    if not isinstance(t, T.StructLikeType) or not t.is_header or t.is_union or not t.pyname:
        return False
    kinds = [T.strip_newtype(f) for f in t.fields.values()]
    return any(isinstance(f, T.VarbitType) for f in kinds) and all(
        isinstance(f, T.VarbitType | T.BitType | T.BoolType) for f in kinds
    )


def _inlinable(t: T.P4Type) -> bool:
    """Headers and structs whose zero object the generator can build field by field."""
    if not isinstance(t, T.StructLikeType) or t.is_union or not t.pyname:
        return False
    return all(
        not isinstance(T.strip_newtype(f), T.VarbitType | T.StackType)
        and (not isinstance(T.strip_newtype(f), T.StructLikeType) or _inlinable(T.strip_newtype(f)))
        for f in t.fields.values()
    )


MAX_WIDTH = 2048  # p4c's limit on bit<W> and int<W> (not on varbit<W>)


def _check_width(w: int, ref: A.BitTypeRef) -> None:
    if w > MAX_WIDTH:
        kind = "int" if ref.signed else "bit"
        raise P4Unsupported.at(ref.pos, f"{kind}<{w}>: widths up to {MAX_WIDTH} are supported")
