#!/usr/bin/env python3
"""Lists, per library crate of the workspace, its public modules and every item that can be
named by two public paths inside the crate.

The module tree is walked from the crate's `lib.rs` through its `mod` declarations (test
modules left out). A module is public when it and every module above it is declared `pub mod`
(`pub(crate)` is private). An item has two paths when a public module re-exports it with
`pub use` while the module that defines it is public too (`crate::a::Item` and
`crate::Item`), or when two public modules re-export it; a `pub use a::*` of a public module
`a` gives every item of `a` two paths. Re-exports of other crates' items (the root crate's
`prelude`) are not counted: across crates a second path is the point of a prelude.

The rule the crates follow (issue 19): modules are private and a crate's root re-exports
what users need; a module stays public only as a deliberate namespace (`sse::frame`), and then
its items are not also re-exported.

Prints one line per crate, `CRATE: N public modules (..); M items with two paths`, then each
such item with its paths; exits 1 if any item has two paths, 0 otherwise.

Usage: scripts/public-paths.py [CRATE_SRC_DIR...]   (default: every library crate's src/)
"""

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The comment and string stripping and the use-tree expansion are module-cycles.py's.
_spec = importlib.util.spec_from_file_location("module_cycles", ROOT / "scripts" / "module-cycles.py")
module_cycles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(module_cycles)

DEFAULT_SOURCES = module_cycles.DEFAULT_SOURCES
IDENT = module_cycles.IDENT
GLOB = "__glob__"


def read(file: Path) -> str:
    return module_cycles.drop_test_items(module_cycles.strip_comments_and_strings(file.read_text()))


def child_file(parent: Path, name: str):
    """The file of module `name` declared in `parent` (`a/mod.rs` or `a.rs` style)."""
    base = parent.parent if parent.name in ("lib.rs", "mod.rs") else parent.with_suffix("")
    for candidate in (base / f"{name}.rs", base / name / "mod.rs"):
        if candidate.is_file():
            return candidate
    return None


class Library:
    def __init__(self, src: Path):
        self.public = {(): True}  # module path -> public from the crate root?
        self.reexports = {}  # module path -> [(name, target segments or None)]
        self._walk((), src / "lib.rs", True)

    def _walk(self, module: tuple, file: Path, public: bool):
        text = read(file)
        for m in re.finditer(r"(?:^|\n)\s*(pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*([;{])", text):
            child = module + (m.group(2),)
            child_public = public and (m.group(1) or "").strip() == "pub"
            self.public[child] = child_public
            if m.group(3) == ";":
                self._walk(child, child_file(file, m.group(2)), child_public)
        self.reexports[module] = []
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
            if not m.group(0).startswith("pub use"):
                continue  # pub(crate) and pub(super) re-exports are not public paths
            tree = re.sub(r"\s+as\s+", "~as~", m.group(1).replace("*", GLOB))
            for path in module_cycles.expand_use_tree(tree):
                path, _, alias = path.partition("~as~")
                self.reexports[module].append((alias or path.split("::")[-1], self._absolute(module, path)))

    def _absolute(self, module: tuple, path: str):
        """The segments of a `pub use` path from the crate root; None if it is another crate's."""
        segments = [s for s in path.split("::") if s]
        head = segments[0]
        if head == "crate":
            return tuple(segments[1:])
        if head in ("self", "super"):
            base = list(module)
            while segments and segments[0] in ("self", "super"):
                if segments.pop(0) == "super":
                    base.pop()
            return tuple(base + segments)
        if module + (head,) in self.public:
            return module + tuple(segments)
        return None

    def _resolve(self, segments: tuple, seen=frozenset()) -> tuple:
        """The path where an item is defined, following `pub use` chains."""
        module = ()
        rest = list(segments)
        while rest and module + (rest[0],) in self.public:
            module += (rest.pop(0),)
        if len(rest) == 1 and (module, rest[0]) not in seen:
            for name, target in self.reexports.get(module, []):
                if name == rest[0] and target is not None:
                    return self._resolve(target, seen | {(module, rest[0])})
        return module + tuple(rest)

    def public_modules(self) -> list:
        return sorted(m for m, public in self.public.items() if public and m)

    def two_paths(self) -> dict:
        """Each item with two public paths -> its public paths."""
        paths = {}
        for module, exports in self.reexports.items():
            if not self.public[module]:
                continue
            for name, target in exports:
                if target is None:
                    continue
                if target[-1] == GLOB:
                    source = target[:-1]
                    if self.public.get(source):
                        paths["::".join(source) + "::*"] = {"::".join(module + ("*",)) or "*",
                                                           "::".join(source + ("*",))}
                    continue
                item = self._resolve(target)
                found = paths.setdefault("::".join(item), set())
                found.add("::".join(module + (name,)))
                if self.public.get(item[:-1]):
                    found.add("::".join(item))
        return {item: sorted(found) for item, found in sorted(paths.items()) if len(found) > 1}


def main(args: list) -> int:
    total = 0
    for source in args or DEFAULT_SOURCES:
        src = (ROOT / source).resolve()
        if not (src / "lib.rs").is_file():
            print(f"public-paths: {source} has no lib.rs", file=sys.stderr)
            return 2
        library = Library(src)
        modules = library.public_modules()
        doubles = library.two_paths()
        total += len(doubles)
        names = ", ".join("::".join(m) for m in modules)
        print(f"{source}: {len(modules)} public modules ({names}); {len(doubles)} items with two paths")
        for item, found in doubles.items():
            print(f"    {item}: " + ", ".join("crate::" + p for p in found))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
