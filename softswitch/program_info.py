"""A compiled program as the rest of softswitch sees it: the generated module and the
control-plane description of the program.

Everything outside the engine (P4Info, the P4Runtime server, the STF runner, the switch
API) reads these records: tables with their keys and actions, actions with their
parameters, extern instances, value sets, digests and controller headers. They are produced
by the code generator while it compiles the program, in declaration order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .frontend.types import StructLikeType

Annotations = tuple[tuple[str, str], ...]  # (name, raw body)

# A structured annotation (`@name[...]`) is kept with its expressions evaluated: its body is
# STRUCTURED followed by JSON, {"list": [v, ...]} or {"kv": [[key, v], ...]} where each v is
# an int, a string or a bool ({} for `@name[]`).
STRUCTURED = "\x1e"

StructuredValue = int | str | bool


def structured_body(
    items: list[StructuredValue] | list[tuple[str, StructuredValue]] | None, kv: bool
) -> str:
    """The body that keeps an evaluated structured annotation (`items` None: `@name[]`)."""
    if items is None:
        return STRUCTURED + "{}"
    return STRUCTURED + json.dumps({"kv": items} if kv else {"list": items})


def structured(body: str) -> dict[str, list[Any]] | None:
    """A structured annotation's evaluated body (see `structured_body`); None for the raw
    body of an annotation that is not structured."""
    if not body.startswith(STRUCTURED):
        return None
    return json.loads(body[len(STRUCTURED) :])  # type: ignore[no-any-return]


def annotation(annots: Annotations, name: str) -> str | None:
    """The raw body of the first unstructured annotation `name` (None: there is none)."""
    for n, body in annots:
        if n == name and not body.startswith(STRUCTURED):
            return body
    return None


@dataclass(frozen=True, slots=True)
class ParamSpec:
    name: str
    width: int
    annotations: Annotations = ()
    type_name: str = ""  # named type (typedef/newtype) for P4Info type_name
    type: Any = None  # semantic type as declared (frontend.types; NewType kept) for P4Info


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """An action as the control plane sees it (fully qualified name, parameters)."""

    name: str  # fully qualified, e.g. "MyIngress.set_nhop" or "NoAction"
    params: tuple[ParamSpec, ...]
    annotations: Annotations = ()
    id_override: int | None = None
    # qualified name of the parser/control instance declaring it ("" at top level); P4Info
    # puts a control's actions together and top-level ones where they are first used
    control: str | None = None


@dataclass(frozen=True, slots=True)
class KeySpec:
    name: str  # the control-plane name (`@name` or the expression text)
    match_kind: str
    width: int
    annotations: Annotations = ()
    type_name: str = ""
    type: Any = None  # semantic type of the key expression (NewType kept), for P4Info
    index: int = -1  # position among all key elements, selector keys included (-1: unknown)


@dataclass(frozen=True, slots=True)
class ActionRefSpec:
    name: str  # qualified action name
    scope: str = "TABLE_AND_DEFAULT"  # or TABLE_ONLY / DEFAULT_ONLY
    annotations: Annotations = ()


@dataclass(frozen=True, slots=True)
class ConstEntrySpec:
    """An entry from `entries = {...}`: one match per key, then action and arguments."""

    matches: tuple[Any, ...]  # tables.Match objects
    action: str
    args: tuple[int, ...]
    priority: int | None
    is_const: bool = False  # `const` on the entry itself (the table's entries may change)


@dataclass(frozen=True, slots=True)
class TableSpec:
    name: str  # fully qualified
    keys: tuple[KeySpec, ...]
    actions: tuple[ActionRefSpec, ...]
    size: int
    default_action: str
    default_args: tuple[int, ...]
    default_const: bool
    const_entries: tuple[ConstEntrySpec, ...] | None
    entries_const: bool = True
    implementation: str | None = None  # action profile/selector instance name
    direct_counter: str | None = None
    direct_meter: str | None = None
    selector_keys: tuple[KeySpec, ...] = ()
    support_timeout: bool = False
    annotations: Annotations = ()
    hidden: bool = False
    has_priority: bool = False


@dataclass(frozen=True, slots=True)
class ExternSpec:
    """An extern instance (register, counter, meter, action profile, ...)."""

    kind: str  # extern type name: register, counter, direct_counter, meter, ...
    name: str  # fully qualified
    type_args: tuple[Any, ...] = ()  # semantic types
    args: tuple[Any, ...] = ()  # constructor argument values (ints, enum member names)
    annotations: Annotations = ()
    in_place: bool | None = None  # constructed in a table property (None: unknown)


@dataclass(frozen=True, slots=True)
class HeaderFieldSpec:
    name: str
    width: int
    annotations: Annotations = ()
    type: Any = None  # semantic type (NewType kept), for P4Info type_name/type_info


@dataclass(frozen=True, slots=True)
class ControllerHeaderSpec:
    name: str  # "packet_in" / "packet_out"
    type_name: str
    fields: tuple[HeaderFieldSpec, ...]
    annotations: Annotations = ()


@dataclass(frozen=True, slots=True)
class DigestSpec:
    name: str  # the struct type name
    fields: tuple[HeaderFieldSpec, ...]
    type: Any = None  # the semantic type of the digested data, for P4Info type_info


@dataclass(frozen=True, slots=True)
class ValueSetSpec:
    name: str
    size: int
    fields: tuple[HeaderFieldSpec, ...]
    annotations: Annotations = ()


@dataclass(slots=True)
class ProgramInfo:
    """Everything the control plane can touch, in declaration order."""

    tables: dict[str, TableSpec] = field(default_factory=dict)
    actions: dict[str, ActionSpec] = field(default_factory=dict)
    externs: dict[str, ExternSpec] = field(default_factory=dict)
    value_sets: dict[str, ValueSetSpec] = field(default_factory=dict)
    digests: dict[str, DigestSpec] = field(default_factory=dict)
    controller_headers: dict[str, ControllerHeaderSpec] = field(default_factory=dict)
    errors: tuple[str, ...] = ()
    arch: str = "v1model"
    # --- optional extras for P4Info (empty when the code generator does not record them)
    # every reference to an action from a control, in source order: (qualified name of the
    # innermost control instance, action name, "table" for action lists/default actions/
    # entries or "call" for a direct call in an apply block; calls in action bodies are in
    # `action_calls`)
    action_refs: list[tuple[str, str, str]] = field(default_factory=list)
    # names of the extern functions called from controls outside actions (apply blocks)
    extern_calls: list[str] = field(default_factory=list)
    # (action, extern function) for the calls made in action bodies, and (action, action)
    # for the actions an action calls: they count for P4Info only if the action is used
    action_extern_calls: list[tuple[str, str]] = field(default_factory=list)
    action_calls: list[tuple[str, str]] = field(default_factory=list)
    # annotations on the package instance `main` (@pkginfo, ...)
    package_annotations: Annotations = ()


@dataclass(slots=True)
class CompiledProgram:
    """A program ready to load into a switch: generated Python and the control-plane view."""

    source: str  # generated Python module
    info: ProgramInfo
    struct_types: dict[str, StructLikeType] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    name: str = "program"
    field_annotations: dict[str, dict[str, Annotations]] = field(default_factory=dict)
    _code: Any = field(default=None, repr=False, compare=False)
    _module: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    # the headers, metadata and standard metadata of packets finished by any switch running
    # the program, made zero again for the next packets (see Switch._recycle)
    spare_structs: list[tuple[Any, Any, Any]] = field(
        default_factory=list, repr=False, compare=False
    )

    def code(self) -> Any:
        """The generated module compiled to a code object, once per program."""
        if self._code is None:
            self._code = compile(self.source, f"<softswitch:{self.name}>", "exec")
        return self._code

    def module(self) -> dict[str, Any]:
        """The generated module's namespace, executed once per program: its header and
        struct classes and its `build(switch)`, which makes one switch's pipeline. All
        switches running the program share the classes (they hold no state), so the
        interpreter's attribute caches in the shared code stay valid from one switch to
        the next; classes made per switch halved the speed of a fabric of switches
        running one program, packets of different switches interleaved."""
        if self._module is None:
            namespace: dict[str, Any] = {}
            exec(self.code(), namespace)  # noqa: S102 - our own generated code
            self._module = namespace
        return self._module
