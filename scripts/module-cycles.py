#!/usr/bin/env python3
"""Lists the module cycles inside each crate of the workspace.

A module is one source file under a crate's `src/` (`lib.rs`/`main.rs` is the crate root,
`a/mod.rs` and `a.rs` are `a`, `a/b.rs` is `a::b`). Module A depends on module B when A's
code names an item of B: through `use crate::…`, `use super::…`, `use self::…`, a path to a
child module, or such a path written inline (`super::b::f()`). A name reached through a
parent's `pub use` counts as a dependency on the module that defines it, not on the parent.
`mod` declarations and `pub use` re-exports are the module tree, not dependencies, and test
code (`#[cfg(test)]` items, files named `tests.rs`) is left out.

Prints every group of modules that depend on each other in a circle (a strongly connected
component of two or more modules), one group a line with the edges that close it, and
exits 1 if there is any; prints "no module cycles" and exits 0 otherwise.

Usage: scripts/module-cycles.py [CRATE_SRC_DIR...]   (default: every crate's src/)
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCES = ["src", "protocol/src", "time/src", "trace/src", "sim/src", "runtimes/src", "consumer/src",
                   "scenarios/src"]
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def module_path(src: Path, file: Path) -> tuple:
    """The module path of a file relative to its crate's src/ (the root is ())."""
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("lib", "main", "mod"):
        parts.pop()
    return tuple(parts)


def strip_comments_and_strings(text: str) -> str:
    """Blanks out comments, string and char literals so paths in them are not read."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not text[i - 1].isalnum()):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            i = n if end < 0 else end + 1 + len(hashes)
            out.append('""')
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]):
            i += len(re.match(r"'(\\.[^']*|[^\\'])'", text[i:]).group(0))
            out.append("' '")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def drop_test_items(text: str) -> str:
    """Removes each item marked `#[cfg(test)]` (a `mod tests;` line or a braced block)."""
    out = []
    i = 0
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        j = m.end()
        semicolon, brace = text.find(";", j), text.find("{", j)
        if brace < 0 or (0 <= semicolon < brace):
            i = semicolon + 1
            continue
        depth = 0
        for k in range(brace, len(text)):
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            if depth == 0:
                i = k + 1
                break
        else:
            i = len(text)
    out.append(text[i:])
    return "".join(out)


def expand_use_tree(tree: str) -> list:
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"]; a glob or `self` names its module."""
    tree = re.sub(r"\s+", "", tree)
    depth = 0
    for k, c in enumerate(tree):
        if c == "{":
            if depth == 0:
                prefix, inner = tree[:k], tree[k + 1:tree.rfind("}")]
                parts, level, start = [], 0, 0
                for p, d in enumerate(inner):
                    level += {"{": 1, "}": -1}.get(d, 0)
                    if d == "," and level == 0:
                        parts.append(inner[start:p])
                        start = p + 1
                parts.append(inner[start:])
                return [path for part in parts if part for path in expand_use_tree(prefix + part)]
            depth += 1
    return [tree.rstrip(":").removesuffix("::*").removesuffix("::self")]


class Crate:
    def __init__(self, src: Path):
        self.src = src
        self.files = {}
        for file in sorted(src.rglob("*.rs")):
            if file.name == "tests.rs" or "tests" in file.relative_to(src).parts[:-1]:
                continue
            self.files[module_path(src, file)] = drop_test_items(
                strip_comments_and_strings(file.read_text()))
        self.modules = set(self.files)
        self.reexports = {m: self._reexports(m, text) for m, text in self.files.items()}

    def _reexports(self, module: tuple, text: str) -> dict:
        """Names a module re-exports with `pub use`, each mapped to the path it stands for."""
        names = {}
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
            for path in self._use_paths(m.group(1)):
                alias = re.search(r"as\s*(" + IDENT + ")$", path)
                full = re.sub(r"\s*as\s*" + IDENT + "$", "", path)
                name = alias.group(1) if alias else full.split("::")[-1]
                names[name] = self.absolute(module, full)
        return names

    @staticmethod
    def _use_paths(tree: str) -> list:
        tree = re.sub(r"\bas\b", " as ", tree)
        paths = []
        for path in expand_use_tree(re.sub(r"\s+as\s+", "~as~", tree)):
            paths.append(path.replace("~as~", " as "))
        return paths

    def absolute(self, module: tuple, path: str):
        """The segments of a path written in `module`, from the crate root; None if outside."""
        segments = [s for s in path.split("::") if s]
        if not segments:
            return None
        base = list(module)
        head = segments[0]
        if head == "crate":
            base, segments = [], segments[1:]
        elif head == "self":
            segments = segments[1:]
        elif head == "super":
            while segments and segments[0] == "super":
                base = base[:-1]
                segments = segments[1:]
        elif tuple(base + [head]) not in self.modules:
            return None  # another crate, std, or a local item
        return tuple(base + segments)

    def defining_module(self, segments: tuple, seen=None):
        """The module that defines the item a path names, following `pub use` re-exports."""
        seen = seen or set()
        module = ()
        rest = list(segments)
        while rest and module + (rest[0],) in self.modules:
            module += (rest.pop(0),)
        if rest and (module, rest[0]) not in seen and rest[0] in self.reexports.get(module, {}):
            seen.add((module, rest[0]))
            target = self.reexports[module][rest[0]]
            if target is not None:
                return self.defining_module(target + tuple(rest[1:]), seen)
        return module

    def dependencies(self) -> dict:
        deps = {m: {} for m in self.files}
        for module, text in self.files.items():
            private = re.sub(r"\bpub(?:\([^)]*\))?\s+use\s+[^;]+;", "", text)
            private = re.sub(r"\b(pub(\([^)]*\))?\s+)?mod\s+" + IDENT + r"\s*;", "", private)
            written = []
            for m in re.finditer(r"\buse\s+([^;]+);", private):
                written += [re.sub(r"\s+as\s+" + IDENT + "$", "", p) for p in self._use_paths(m.group(1))]
            inline = re.sub(r"\buse\s+[^;]+;", "", private)
            written += re.findall(r"(?<![A-Za-z0-9_:])((?:crate|super|self|" + IDENT + r")(?:::" + IDENT + r")+)", inline)
            for path in written:
                segments = self.absolute(module, path)
                if segments is None:
                    continue
                target = self.defining_module(segments)
                if target != module and target in self.files:
                    deps[module].setdefault(target, path)
        return deps


def cycles(deps: dict) -> list:
    """Strongly connected components of two or more modules (Tarjan), in a stable order."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(deps[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(deps):
        if v not in index:
            visit(v)
    return sorted(found)


def name(module: tuple) -> str:
    return "::".join(("crate",) + module)


def main(args: list) -> int:
    sources = args or DEFAULT_SOURCES
    count = 0
    for source in sources:
        src = (ROOT / source).resolve()
        if not src.is_dir():
            print(f"module-cycles: {source} is not a directory", file=sys.stderr)
            return 2
        crate = Crate(src)
        deps = crate.dependencies()
        for component in cycles(deps):
            count += 1
            members = set(component)
            edges = [f"{name(a)} -> {name(b)} ({deps[a][b]})"
                     for a in component for b in sorted(deps[a]) if b in members]
            print(f"{source}: {', '.join(name(m) for m in component)}")
            for edge in edges:
                print(f"    {edge}")
    if count == 0:
        print("no module cycles")
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
