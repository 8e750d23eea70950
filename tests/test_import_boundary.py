"""The engine never imports Textual or Rich (harlequin's pattern), and the command line imports them
(and the app, hipport.tui) only inside the commands that open the app: checked in a fresh interpreter,
importing every hipport.engine / hipport.cli module found on disk."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import hipport.cli
import hipport.engine

FORBIDDEN = ("textual", "rich")


def engine_modules() -> list[str]:
    names = ["hipport.engine"]
    for info in pkgutil.walk_packages(hipport.engine.__path__, prefix="hipport.engine."):
        names.append(info.name)
    return sorted(names)


def cli_modules() -> list[str]:
    """Every hipport.cli module but __main__ (importing that runs the command)."""
    names = ["hipport.cli"]
    for info in pkgutil.walk_packages(hipport.cli.__path__, prefix="hipport.cli."):
        if info.name != "hipport.cli.__main__":
            names.append(info.name)
    return sorted(names)


def _imported_after(mods: list[str], forbidden: tuple[str, ...], then: str = "") -> str:
    """Which of `forbidden` a fresh interpreter holds after importing `mods` (and running `then`)."""
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}:\n"
        "    importlib.import_module(m)\n"
        f"{then}\n"
        f"print(','.join(m for m in {forbidden!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def test_engine_has_modules_to_check() -> None:
    mods = engine_modules()
    assert "hipport.engine.edits" in mods and "hipport.engine.model" in mods


def test_engine_imports_no_textual_or_rich() -> None:
    imported = _imported_after(engine_modules(), FORBIDDEN)
    assert imported == "", f"engine imported: {imported}"


def test_cli_imports_no_textual_until_a_command_opens_the_app() -> None:
    mods = cli_modules()
    assert "hipport.cli.commands.convert" in mods and "hipport.cli.commands.open" in mods
    # every module, and the parser with every command registered (what `hipport convert` loads)
    imported = _imported_after(mods, (*FORBIDDEN, "hipport.tui"),
                               "from hipport.cli.main import build_parser\nbuild_parser()")
    assert imported == "", f"the command line imported: {imported}"


def test_the_check_would_catch_textual() -> None:
    # the same probe reports textual once a module imports it (guards against a vacuous test)
    code = f"import textual.app, sys\nprint(','.join(m for m in {FORBIDDEN!r} if m in sys.modules))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "textual" in proc.stdout


def _engine_import_graph() -> dict[str, set[str]]:
    """module -> engine modules it imports, at any depth of the file (function-level imports too)."""
    import ast
    from pathlib import Path

    root = Path(hipport.engine.__path__[0])
    files = {".".join(("hipport.engine", *p.relative_to(root).with_suffix("").parts)).removesuffix(".__init__"): p
             for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1] if node.level else []
                target = ".".join([*base, node.module] if node.module else base)
                for a in node.names:
                    deps.add(f"{target}.{a.name}" if f"{target}.{a.name}" in files else target)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[name] = {d for d in deps if d in files and d != name}
    return graph


def test_engine_has_no_import_cycles() -> None:
    # translate <-> python_host.py was one (a function-level import hid it from Python)
    graph = _engine_import_graph()
    assert "hipport.engine.translate.driver" in graph["hipport.engine.translate.python_host"] or \
        "hipport.engine.translate.python_host" in graph["hipport.engine.translate.driver"]
    cycles = []
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycles.append([*path[path.index(d):], d])
            elif d not in state:
                visit(d, [*path, d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == []
