"""The node library: node types, their categories, attributes (with kinds and defaults) and ports.

Node types are described in JSON files, one or more per folder. The bundled folder is
``resources/library`` (see :mod:`gindex_studio.paths`); users can add folders whose types are
loaded after the bundled ones, and a user type with the same id replaces the bundled one.

File format (one object per file)::

    {
      "category": {"id": "common-utility", "label": "...", "description": "...", "color": "#a6bbcf"},
      "source": "where the keys and defaults come from (free text, ignored)",
      "types": [
        {"type": "inject", "label": "inject", "category": "common-utility", "color": "#a6bbcf",
         "inputs": 0, "outputs": 1, "description": "...", "icon": "inject.svg",
         "attributes": [{"key": "once", "kind": "boolean", "default": false, "label": "Once"}, ...]}
      ]
    }

``"categories": [...]`` may be given instead of (or with) ``"category"``; a file may also hold
only types of categories defined elsewhere. A type's ``color`` falls back to its category's.
Attribute kinds: ``string``, ``number``, ``boolean``, ``enum`` (with ``choices``), ``json`` (any
JSON value, e.g. rule lists) and ``code`` (a JavaScript body). A ``string`` attribute with
``"ref": "<config type>"`` holds the id of a config node of that type (Node-RED's
``{type: "<config type>"}`` property), e.g. a Telegram receiver's ``bot``. An attribute without ``default``
(or with ``null``) has no default: :meth:`NodeLibrary.fill_defaults` leaves it out, as Node-RED
leaves out properties whose default is undefined. Optional per attribute: ``"label"`` (the words
Node-RED's editor uses; a humanised key when absent), ``"choice_labels"`` (an enum's choice → the
text shown for it), ``"legacy": true`` (kept for old flows, hidden by editors unless set) and
``"type_key"`` (the attribute holding this value's type when it is not ``<key>Type``).

Pure Python: no Qt.
"""
from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from gindex_studio.core.flows.flow import Flow, Node, normalise_wires
from gindex_studio.core.flows.nesting import MAX_DEPTH, depth_problem

KINDS: tuple[str, ...] = ("string", "number", "boolean", "enum", "json", "code")

#: Category ids of the paper's Appendix B (Table 3), in its order.
APPENDIX_B_CATEGORIES: tuple[str, ...] = (
    "common-utility",
    "functional",
    "network",
    "sequence",
    "parser",
    "storage",
    "dashboard",
    "browser-automation",
    "spotify-automation",
    "gdrive-automation",
    "scheduling",
    "zoom-automation",
    "system-utilities",
    "stock-automation",
    "home-automation",
)

#: Keys that are structure or layout, never attributes.
RESERVED_KEYS = frozenset({"id", "type", "x", "y", "z", "wires"})

_COLOR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")
_FILE_KEYS = frozenset({"category", "categories", "types", "source", "$comment"})
_CATEGORY_KEYS = frozenset({"id", "label", "description", "color"})
_TYPE_REQUIRED = ("type", "label", "category", "inputs", "outputs", "attributes", "description")
_TYPE_KEYS = frozenset(_TYPE_REQUIRED) | {"color", "icon", "config", "source"}
_ATTR_KEYS = frozenset({"key", "kind", "default", "choices", "label", "ref", "choice_labels", "legacy", "type_key"})


class LibraryError(Exception):
    """A node library file that cannot be used, with a message naming the file, the type and the fault."""

    def __init__(self, message: str, path: str | Path | None = None, type_id: str | None = None):
        super().__init__(message)
        self.path = Path(path) if path is not None else None
        self.type_id = type_id


@dataclass(frozen=True)
class Attribute:
    """One editable property of a node type."""

    key: str
    kind: str
    default: Any = field(default=None, hash=False)
    choices: tuple = ()
    label: str = ""
    ref: str = ""  # the config node type whose id this attribute holds ("" when it holds none)
    choice_labels: tuple = ()  # (choice, text shown) pairs for an enum's choices, as Node-RED words them
    legacy: bool = False  # kept for old flows; editors hide it unless a node sets it
    type_key: str = ""  # the attribute holding this value's type (Node-RED's typed input), "" when none

    def choice_text(self, choice: Any) -> str:
        """What an editor shows for ``choice``: its label, else the choice itself ("(empty)" for "")."""
        for c, text in self.choice_labels:
            if c == choice and type(c) is type(choice):
                return text
        return str(choice) if choice != "" else "(empty)"


@dataclass(frozen=True)
class Category:
    """A palette category."""

    id: str
    label: str
    description: str
    color: str


@dataclass(frozen=True)
class NodeType:
    """A node type: ports, attributes and how the palette shows it."""

    type: str
    label: str
    category: str
    color: str
    inputs: int
    outputs: int
    attributes: tuple[Attribute, ...]
    description: str
    icon: str | None = None
    config: bool = False

    def defaults(self) -> dict:
        """A fresh dict of key → default (deep-copied) for every attribute that has a default."""
        return {a.key: copy.deepcopy(a.default) for a in self.attributes if a.default is not None}

    def attribute(self, key: str) -> Attribute | None:
        """The attribute with this key, or None."""
        for a in self.attributes:
            if a.key == key:
                return a
        return None


# ----------------------------------------------------------------------------------------------
# reading and validating files
# ----------------------------------------------------------------------------------------------
def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_default(kind: str, default: Any, choices: tuple) -> str | None:
    """Why ``default`` does not fit ``kind``, or None when it does (None always fits)."""
    if default is None:
        return None
    if kind in ("string", "code") and not isinstance(default, str):
        return f"default {default!r} is not a string"
    if kind == "number" and not _is_number(default):
        return f"default {default!r} is not a number"
    if kind == "boolean" and not isinstance(default, bool):
        return f"default {default!r} is not true or false"
    if kind == "enum" and default not in choices:
        return f"default {default!r} is not one of the choices {list(choices)!r}"
    return None


_TOO_DEEP = f"JSON nested deeper than {MAX_DEPTH} levels (the limit for arrays and objects)"


def _read_json(path: Path) -> Any:
    from gindex_studio.core.flows.files import UserFileError, read_user_text

    try:
        text = read_user_text(path, "a node library file")
    except UserFileError as exc:
        raise LibraryError(str(exc), path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LibraryError(
            f"{path}: broken JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", path
        ) from exc
    except RecursionError:
        raise LibraryError(f"{path}: {_TOO_DEEP}", path) from None


def _parse_category(data: Any, path: Path) -> Category:
    where = f"{path}: category"
    if not isinstance(data, dict):
        raise LibraryError(f"{where}: must be an object, not {type(data).__name__}", path)
    cid = data.get("id")
    if isinstance(cid, str) and cid:
        where = f"{path}: category {cid!r}"
    unknown = sorted(set(data) - _CATEGORY_KEYS)
    if unknown:
        raise LibraryError(f"{where}: unknown field(s) {', '.join(unknown)}", path)
    for name in ("id", "label", "description", "color"):
        if name not in data:
            raise LibraryError(f"{where}: missing field {name!r}", path)
        if not isinstance(data[name], str) or (name in ("id", "label") and not data[name].strip()):
            raise LibraryError(f"{where}: field {name!r} must be a non-empty string", path)
    if not _COLOR_RE.match(data["color"]):
        raise LibraryError(f"{where}: colour {data['color']!r} is not of the form #rrggbb", path)
    return Category(data["id"], data["label"], data["description"], data["color"].lower())


def _parse_attribute(data: Any, path: Path, tid: str, index: int) -> Attribute:
    where = f"{path}: type {tid!r}: attribute #{index + 1}"
    if not isinstance(data, dict):
        raise LibraryError(f"{where}: must be an object, not {type(data).__name__}", path, tid)
    key = data.get("key")
    if not isinstance(key, str) or not key:
        raise LibraryError(f"{where}: missing field 'key' (a non-empty string)", path, tid)
    where = f"{path}: type {tid!r}: attribute {key!r}"
    unknown = sorted(set(data) - _ATTR_KEYS)
    if unknown:
        raise LibraryError(f"{where}: unknown field(s) {', '.join(unknown)}", path, tid)
    if key in RESERVED_KEYS:
        raise LibraryError(f"{where}: {key!r} is a structure key, not an attribute", path, tid)
    kind = data.get("kind")
    if kind is None:
        raise LibraryError(f"{where}: missing field 'kind' (one of {', '.join(KINDS)})", path, tid)
    if kind not in KINDS:
        raise LibraryError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}", path, tid)
    raw_choices = data.get("choices")
    if kind == "enum":
        if not isinstance(raw_choices, list) or not raw_choices:
            raise LibraryError(f"{where}: an enum needs a non-empty 'choices' list", path, tid)
        bad = [c for c in raw_choices if not isinstance(c, (str, int, float, bool))]
        if bad:
            raise LibraryError(f"{where}: choices must be strings or numbers, not {bad[0]!r}", path, tid)
        choices = tuple(raw_choices)
    else:
        if raw_choices not in (None, []):
            raise LibraryError(f"{where}: 'choices' is only allowed for kind 'enum', not {kind!r}", path, tid)
        choices = ()
    default = data.get("default")
    problem = _check_default(kind, default, choices)
    if problem:
        raise LibraryError(f"{where}: {problem} (kind {kind!r})", path, tid)
    label = data.get("label", "")
    if not isinstance(label, str):
        raise LibraryError(f"{where}: 'label' must be a string", path, tid)
    ref = data.get("ref", "")
    if not isinstance(ref, str) or (ref and kind != "string"):
        raise LibraryError(f"{where}: 'ref' must be the id of a config type, on a 'string' attribute", path, tid)
    raw_labels = data.get("choice_labels", {})
    if not isinstance(raw_labels, dict) or not all(isinstance(v, str) for v in raw_labels.values()):
        raise LibraryError(f"{where}: 'choice_labels' must map choices to strings", path, tid)
    by_text = {c if isinstance(c, str) else json.dumps(c): c for c in choices}  # JSON object keys are strings
    stray = sorted(set(raw_labels) - set(by_text))
    if stray:
        raise LibraryError(f"{where}: 'choice_labels' names {stray[0]!r}, which is not a choice", path, tid)
    legacy = data.get("legacy", False)
    type_key = data.get("type_key", "")
    if not isinstance(legacy, bool) or not isinstance(type_key, str):
        raise LibraryError(f"{where}: 'legacy' must be true/false and 'type_key' a string", path, tid)
    return Attribute(key, kind, default, choices, label or humanise(key), ref,
                     tuple((by_text[k], v) for k, v in raw_labels.items()), legacy, type_key)


def humanise(key: str) -> str:
    """A readable label for an attribute key the library gives none: words split at capitals,
    underscores and hyphens, the first capitalised.

    >>> humanise("onceDelay"), humanise("include_empty_strings"), humanise("url")
    ('Once delay', 'Include empty strings', 'Url')
    """
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", key).replace("_", " ").replace("-", " ").split()
    text = " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)
    return text[:1].upper() + text[1:]


def _parse_type(data: Any, path: Path, index: int, categories: Mapping[str, Category]) -> tuple[NodeType, bool]:
    """A NodeType and whether its colour was given (False: the category's colour is used later)."""
    where = f"{path}: type #{index + 1}"
    if not isinstance(data, dict):
        raise LibraryError(f"{where}: must be an object, not {type(data).__name__}", path)
    tid = data.get("type")
    if not isinstance(tid, str) or not tid.strip() or tid != tid.strip():
        raise LibraryError(f"{where}: field 'type' must be a non-empty string without outer spaces", path)
    where = f"{path}: type {tid!r}"
    unknown = sorted(set(data) - _TYPE_KEYS)
    if unknown:
        raise LibraryError(f"{where}: unknown field(s) {', '.join(unknown)}", path, tid)
    for name in _TYPE_REQUIRED:
        if name not in data:
            raise LibraryError(f"{where}: missing field {name!r}", path, tid)
    for name in ("label", "category", "description"):
        if not isinstance(data[name], str):
            raise LibraryError(f"{where}: field {name!r} must be a string", path, tid)
    if not data["label"].strip() or not data["category"].strip():
        raise LibraryError(f"{where}: 'label' and 'category' must not be empty", path, tid)
    for name in ("inputs", "outputs"):
        value = data[name]
        if not _is_int(value):
            raise LibraryError(f"{where}: {name} must be a whole number, not {value!r}", path, tid)
        if value < 0:
            raise LibraryError(f"{where}: {name} must not be negative ({value})", path, tid)
    if data["inputs"] > 1:
        raise LibraryError(f"{where}: inputs must be 0 or 1 (Node-RED nodes have at most one input)", path, tid)
    config = data.get("config", False)
    if not isinstance(config, bool):
        raise LibraryError(f"{where}: 'config' must be true or false", path, tid)
    if config and (data["inputs"] or data["outputs"]):
        raise LibraryError(f"{where}: a config type has no ports (inputs and outputs must be 0)", path, tid)
    color = data.get("color")
    if color is not None and (not isinstance(color, str) or not _COLOR_RE.match(color)):
        raise LibraryError(f"{where}: colour {color!r} is not of the form #rrggbb", path, tid)
    icon = data.get("icon")
    if icon is not None and not isinstance(icon, str):
        raise LibraryError(f"{where}: 'icon' must be a string", path, tid)
    if not isinstance(data["attributes"], list):
        raise LibraryError(f"{where}: 'attributes' must be a list", path, tid)
    attributes = tuple(_parse_attribute(a, path, tid, i) for i, a in enumerate(data["attributes"]))
    seen: set[str] = set()
    for a in attributes:
        if a.key in seen:
            raise LibraryError(f"{where}: attribute {a.key!r} is listed twice", path, tid)
        seen.add(a.key)
    cat = categories.get(data["category"])
    node_type = NodeType(
        type=tid,
        label=data["label"],
        category=data["category"],
        color=(color or (cat.color if cat else "#dddddd")).lower(),
        inputs=data["inputs"],
        outputs=data["outputs"],
        attributes=attributes,
        description=data["description"],
        icon=icon or None,
        config=config,
    )
    return node_type, color is not None


@dataclass
class _Folder:
    categories: list[Category]
    types: list[tuple[NodeType, bool, Path]]


def _read_folder(folder: Path, known_categories: Mapping[str, Category]) -> _Folder:
    folder = Path(folder)
    if not folder.exists():
        return _Folder([], [])
    if not folder.is_dir():
        raise LibraryError(f"{folder}: a node library folder must be a directory", folder)
    categories: list[Category] = []
    category_files: dict[str, Path] = {}
    raw_types: list[tuple[Any, Path, int]] = []
    for path in sorted(folder.glob("*.json")):
        data = _read_json(path)
        if depth_problem(data):
            raise LibraryError(f"{path}: {_TOO_DEEP}", path)
        if not isinstance(data, dict):
            raise LibraryError(f"{path}: must hold a JSON object with a 'types' list, not {type(data).__name__}", path)
        unknown = sorted(set(data) - _FILE_KEYS)
        if unknown:
            raise LibraryError(
                f"{path}: unknown top-level field(s) {', '.join(unknown)} (expected category, categories, types)", path
            )
        cats = []
        if "category" in data:
            cats.append(data["category"])
        if "categories" in data:
            if not isinstance(data["categories"], list):
                raise LibraryError(f"{path}: 'categories' must be a list", path)
            cats.extend(data["categories"])
        for raw in cats:
            cat = _parse_category(raw, path)
            if cat.id in category_files:
                raise LibraryError(
                    f"{path}: category {cat.id!r} is also defined in {category_files[cat.id].name}", path
                )
            category_files[cat.id] = path
            categories.append(cat)
        types = data.get("types", [])
        if not isinstance(types, list):
            raise LibraryError(f"{path}: 'types' must be a list", path)
        raw_types.extend((t, path, i) for i, t in enumerate(types))
    visible = dict(known_categories)
    visible.update((c.id, c) for c in categories)
    parsed: list[tuple[NodeType, bool, Path]] = []
    type_files: dict[str, Path] = {}
    for raw, path, i in raw_types:
        node_type, has_color = _parse_type(raw, path, i, visible)
        if node_type.type in type_files:
            first = type_files[node_type.type]
            also = "earlier in the same file" if first == path else f"in {first.name}"
            raise LibraryError(
                f"{path}: type {node_type.type!r} is defined twice in {folder} (also {also})", path, node_type.type
            )
        type_files[node_type.type] = path
        parsed.append((node_type, has_color, path))
    return _Folder(categories, parsed)


# ----------------------------------------------------------------------------------------------
# the library
# ----------------------------------------------------------------------------------------------
def user_library_folders() -> list[Path]:
    """Existing user library folders: ``<user data>/library`` then ``$GINDEX_LIBRARY_PATH``."""
    import os

    from gindex_studio.paths import user_library_dir

    folders = [user_library_dir(create=False)]
    folders += [Path(p) for p in os.environ.get("GINDEX_LIBRARY_PATH", "").split(os.pathsep) if p.strip()]
    return [f for f in folders if f.is_dir()]


def _node_data(node: Node | Mapping[str, Any]) -> Mapping[str, Any]:
    return node.data if isinstance(node, Node) else node


class NodeLibrary:
    """Node types by id, with their categories; built by :meth:`load` or :meth:`bundled`."""

    _bundled: "NodeLibrary | None" = None
    #: Why user library folders were left out of :meth:`bundled` (one line each), if any.
    user_errors: list[str] = []

    def __init__(self, types: Iterable[NodeType] = (), categories: Iterable[Category] = ()):
        self._types: dict[str, NodeType] = {}
        for t in types:
            self._types[t.type] = t
        order = {cid: i for i, cid in enumerate(APPENDIX_B_CATEGORIES)}
        cats = list({c.id: c for c in categories}.values())
        cats.sort(key=lambda c: order.get(c.id, len(order)))  # stable: others keep load order
        self._categories = cats

    # ----- construction -----------------------------------------------------------------------
    @classmethod
    def load(cls, extra_dirs: Iterable[str | Path] = ()) -> "NodeLibrary":
        """Read the bundled library folder, then each of ``extra_dirs`` (missing folders are skipped).

        A type or category in a later folder replaces the one with the same id. Raises
        :class:`LibraryError` for any file that is broken (see the module docstring).
        """
        from gindex_studio.paths import LIBRARY_DIR

        categories: dict[str, Category] = {}
        types: dict[str, NodeType] = {}
        sources: dict[str, Path] = {}
        colorless: set[str] = set()
        for folder in (LIBRARY_DIR, *extra_dirs):
            part = _read_folder(Path(folder), categories)
            for c in part.categories:
                categories[c.id] = c
            for t, has_color, path in part.types:
                types[t.type] = t
                sources[t.type] = path
                if has_color:
                    colorless.discard(t.type)
                else:
                    colorless.add(t.type)
        for tid, t in types.items():
            cat = categories.get(t.category)
            if cat is None:
                raise LibraryError(
                    f"{sources[tid]}: type {tid!r}: category {t.category!r} is not defined in any library file",
                    sources[tid],
                    tid,
                )
            if tid in colorless and t.color != cat.color:
                types[tid] = replace(t, color=cat.color)
        return cls(types.values(), categories.values())

    @classmethod
    def bundled(cls) -> "NodeLibrary":
        """The studio's library, loaded on first use and cached: the bundled folder, then the
        user's library folder (``<user data>/library``) and the folders listed in
        ``$GINDEX_LIBRARY_PATH`` (``os.pathsep``-separated) where they exist. A user folder that
        does not load is left out and its error kept in ``user_errors``: the studio still starts."""
        if cls._bundled is None:
            usable: list[Path] = []
            errors: list[str] = []
            for folder in user_library_folders():
                try:
                    cls.load([*usable, folder])
                    usable.append(folder)
                except LibraryError as e:
                    errors.append(str(e))
            cls._bundled = cls.load(usable)
            cls.user_errors = errors
        return cls._bundled

    # ----- lookup -------------------------------------------------------------------------------
    def get(self, type_id: str) -> NodeType | None:
        return self._types.get(type_id)

    def __contains__(self, type_id: object) -> bool:
        return type_id in self._types

    def __len__(self) -> int:
        return len(self._types)

    def __iter__(self):
        return iter(self.types)

    def __repr__(self) -> str:
        return f"NodeLibrary({len(self._types)} types, {len(self._categories)} categories)"

    @property
    def types(self) -> list[NodeType]:
        """All node types in load order (bundled files by name, then user folders)."""
        return list(self._types.values())

    @property
    def categories(self) -> list[Category]:
        """Categories: Appendix B's fifteen in the paper's order, then any others in load order."""
        return list(self._categories)

    def category(self, cat_id: str) -> Category | None:
        for c in self._categories:
            if c.id == cat_id:
                return c
        return None

    def by_category(self, cat_id: str) -> list[NodeType]:
        """The types of one category, in load order."""
        return [t for t in self._types.values() if t.category == cat_id]

    # ----- flows --------------------------------------------------------------------------------
    def unknown_types(self, flow: Flow) -> set[str]:
        """Type ids used in ``flow`` that the library does not describe."""
        nodes = flow.nodes if isinstance(flow, Flow) else flow
        return {n.type for n in nodes if n.type not in self._types}

    def fill_defaults(self, node_data: Mapping[str, Any]) -> dict:
        """A new dict: the node's keys in their order, then the defaults of attributes it lacks.

        Nodes of unknown types are copied unchanged. Defaults are deep copies.
        """
        out = dict(node_data)
        t = self._types.get(node_data.get("type")) if isinstance(node_data.get("type"), str) else None
        if t is None:
            return out
        for a in t.attributes:
            if a.key not in out and a.default is not None:
                out[a.key] = copy.deepcopy(a.default)
        return out

    def output_count(self, node: Node | Mapping[str, Any]) -> int:
        """How many output ports to draw for ``node``.

        The library's count, or the node's own ``outputs`` value for types whose output count is an
        attribute (function, switch, ...); for unknown types the number of ports in its ``wires``.
        Never less than the ports actually wired (the last non-empty port).
        """
        data = _node_data(node)
        ports = normalise_wires(data.get("wires"))
        wired = max((i + 1 for i, p in enumerate(ports) if p), default=0)
        t = self._types.get(data.get("type")) if isinstance(data.get("type"), str) else None
        if t is None:
            return max(len(ports), wired)
        count = t.outputs
        if t.attribute("outputs") is not None:
            own = _as_count(data.get("outputs"))
            if own is not None:
                count = own
        return max(count, wired)

    def input_count(self, node: Node | Mapping[str, Any]) -> int:
        """How many input ports (0 or 1) to draw for ``node``.

        The library's count, or the node's own ``inputs`` value for types where it is an attribute
        (mqtt in, twitter in); unknown types get 1, except nodes that look like config nodes (no
        ``wires`` and no position), which get 0.
        """
        data = _node_data(node)
        t = self._types.get(data.get("type")) if isinstance(data.get("type"), str) else None
        if t is None:
            looks_config = "wires" not in data and "x" not in data and "y" not in data
            return 0 if looks_config else 1
        if t.attribute("inputs") is not None:
            own = _as_count(data.get("inputs"))
            if own is not None:
                return min(own, 1)
        return t.inputs


def _as_count(value: Any) -> int | None:
    """A non-negative port count from a node's ``outputs``/``inputs`` value (int or digit string)."""
    if _is_int(value) and value >= 0:
        return value
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None
