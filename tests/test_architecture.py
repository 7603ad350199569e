"""The layers and seams of docs/architecture.md, checked on the source itself.

Imports are read with :mod:`ast`, so an import inside a function counts as
much as one at the top of a module.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.formats import registry
from inspector.formats.findings import RULES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "inspector"
MAX_FUNCTION_LINES = 60


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        yield ".".join(parts), path


MODULES = dict(_modules())


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    is_package = MODULES[module].name == "__init__.py"
    keep = len(base) - node.level + (1 if is_package else 0)
    prefix = ".".join(base[:keep])
    return f"{prefix}.{node.module}" if node.module else prefix


def _imports(module: str) -> set[str]:
    """Every module ``module`` imports, anywhere in its body."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            found.add(target)
            for alias in node.names:
                if f"{target}.{alias.name}" in MODULES:
                    found.add(f"{target}.{alias.name}")
    return found


def _internal_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module in MODULES:
        deps = set()
        for target in _imports(module):
            # importing a.b.c also runs a/__init__ and a/b/__init__
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                name = ".".join(parts[:i])
                if name in MODULES and name != module:
                    deps.add(name)
        graph[module] = deps
    return graph


def _is_parent_package(a: str, b: str) -> bool:
    return b.startswith(a + ".")


@pytest.mark.slow
def test_no_import_cycles() -> None:
    graph = _internal_graph()
    # a package's __init__ importing its own sub-modules is not a cycle of layers:
    # drop the edge child -> parent package that Python adds implicitly
    for module, deps in graph.items():
        graph[module] = {d for d in deps if not _is_parent_package(d, module)}
    seen: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        seen[node] = 1
        stack.append(node)
        for dep in sorted(graph[node]):
            if seen.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in seen:
                visit(dep)
        stack.pop()
        seen[node] = 2

    for module in sorted(graph):
        if module not in seen:
            visit(module)
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def _layer_violations(prefix: str, forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for module in MODULES:
        if module == prefix or module.startswith(prefix + "."):
            for target in _imports(module):
                if any(target == f or target.startswith(f + ".") for f in forbidden):
                    bad.append(f"{module} imports {target}")
    return sorted(bad)


@pytest.mark.slow
def test_formats_never_import_qt_or_the_gui() -> None:
    assert _layer_violations("inspector.formats", (
        "PySide6", "pyqtgraph", "inspector.ui", "inspector.models", "inspector.jobs",
        "inspector.app", "inspector.runtime")) == []


def test_the_runtime_measures_never_import_the_gui() -> None:
    assert _layer_violations("inspector.runtime", (
        "inspector.ui", "inspector.models", "inspector.app")) == []


def test_models_never_import_ui() -> None:
    assert _layer_violations("inspector.models", ("inspector.ui", "inspector.app")) == []


@pytest.mark.slow
def test_ui_and_models_never_touch_files_directly() -> None:
    forbidden = ("h5py", "zipfile")
    assert _layer_violations("inspector.ui", forbidden) == []
    assert _layer_violations("inspector.models", forbidden) == []


def test_views_are_chosen_by_capability_not_format_name() -> None:
    bad = []
    for module, path in MODULES.items():
        if module.startswith(("inspector.ui", "inspector.models")):
            text = path.read_text(encoding="utf-8")
            for needle in ("FORMAT_RECORDING", "FORMAT_AUCX", "FORMAT_DELIMITED", "FormatId.",
                           ".extra[", ".extra.get", "doc.summary", ".verifier"):
                if needle in text:
                    bad.append(f"{module}: {needle}")
    assert bad == []


MAX_MODULE_LINES = 700

#: Modules still over MAX_MODULE_LINES, each to be split into modules with one job each;
#: a module here may shrink but not grow, and leaves the list once it is split.
OVER_SIZE_TO_SPLIT: dict[str, int] = {
}


#: Mappings of a document's offers: the UI reaches an array or a table through the
#: capability that holds it (``doc.neural_array()``, ``AucScans.table``...), never by a name.
NAMED_OFFERS = ("arrays", "tables")


def _offer_name(node: ast.AST) -> str | None:
    """``"arrays"``/``"tables"`` when ``node`` is ``x.arrays``/``arrays`` (or ``tables``)."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
    return name if name in NAMED_OFFERS else None


def _is_text(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _offers_by_name(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """``(line, what)`` of every ``x.arrays["name"]``, ``x.tables.get("name")``,
    ``"name" in x.arrays`` (and the like) in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _offer_name(node.value) and _is_text(node.slice):
            yield node.lineno, f"{_offer_name(node.value)}[...]"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and _offer_name(node.func.value) and node.args and _is_text(node.args[0]):
            yield node.lineno, f"{_offer_name(node.func.value)}.{node.func.attr}(...)"
        elif isinstance(node, ast.Compare) and _is_text(node.left) and any(
                _offer_name(c) for c in node.comparators):
            yield node.lineno, "... in arrays/tables"


@pytest.mark.slow
def test_ui_models_and_analysis_never_look_arrays_or_tables_up_by_name() -> None:
    bad = []
    for module, path in MODULES.items():
        if module.startswith(("inspector.ui", "inspector.models", "inspector.formats.analysis")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            bad += [f"{module}:{line}: {what}" for line, what in _offers_by_name(tree)]
    assert bad == []


def test_the_name_lookup_rule_sees_every_form() -> None:
    code = ('doc.arrays["neuro"]\nself.doc.tables.get("trial_meta")\n'
            '"neuro" in doc.arrays\ntables.get("scans")\ndoc.arrays[name]\n')
    assert [line for line, _ in _offers_by_name(ast.parse(code))] == [1, 2, 3, 4]


def _long_functions(prefix: str) -> list[str]:
    out = []
    for module, path in MODULES.items():
        if not module.startswith(prefix):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    out.append(f"{module}.{node.name}: {length} lines")
    return sorted(out)


@pytest.mark.slow
def test_no_function_is_longer_than_60_lines() -> None:
    assert _long_functions("inspector") == []


def test_no_module_is_longer_than_700_lines() -> None:
    over = {}
    for module, path in MODULES.items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > OVER_SIZE_TO_SPLIT.get(module, MAX_MODULE_LINES):
            over[module] = lines
    assert over == {}


def test_the_exclusion_lists_name_existing_modules() -> None:
    assert set(OVER_SIZE_TO_SPLIT) <= set(MODULES)
    assert {"inspector.ui.document_tab", "inspector.ui.main_window"} <= set(MODULES)


#: Packages of ``formats/`` that are libraries the readers build on, not formats.
LIBRARY_PACKAGES = {"analysis", "auc", "compare", "decoding", "nodes", "remote", "sources",
                    "values"}


def test_every_format_package_registers_a_reader() -> None:
    packages = sorted(p.parent.name for p in (PACKAGE / "formats").glob("*/__init__.py")
                      if p.parent.name not in LIBRARY_PACKAGES)
    ids = {r.format_id for r in registry.readers()}
    assert len(ids) == len(registry.readers())
    for name in packages:
        module = sys.modules[f"inspector.formats.{name}"]
        assert getattr(module, "READER", None) is not None, name


@pytest.mark.slow
def test_every_finding_code_in_the_source_is_a_declared_rule() -> None:
    """A code string passed to ``rule(...)`` is declared exactly once."""
    from inspector.formats.rulebook import declare_all

    declare_all()  # imports every module of the format layer, declaring its rules
    declared: dict[str, str] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "rule" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                code = node.args[0].value
                assert code not in declared, f"{code} declared in {declared.get(code)} and {module}"
                declared[code] = module
    assert set(declared) <= set(RULES) | set(declared)
    missing = set(declared) - set(RULES)
    assert missing == set(), f"declared but never imported: {sorted(missing)}"


def test_no_transitional_shims_remain() -> None:
    bad = [m for m, p in MODULES.items() if "TRANSITIONAL" in p.read_text(encoding="utf-8")]
    assert bad == []


def test_tests_import_our_modules_directly() -> None:
    bad = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        if path.name == Path(__file__).name:
            continue
        text = path.read_text(encoding="utf-8")
        if 'importorskip("inspector' in text or "importorskip('inspector" in text:
            bad.append(path.name)
    assert bad == []


def test_gui_tests_never_skip_for_a_missing_pytest_qt() -> None:
    """pytest-qt is a hard test dependency (loaded by ``addopts``: a run without it fails at
    start-up); a test that skipped without it would hide a broken test install."""
    bad = [path.name for path in sorted((ROOT / "tests").glob("*.py"))
           if path.name != Path(__file__).name
           and any(f"importorskip({q}pytestqt" in path.read_text(encoding="utf-8")
                   for q in "\"'")]
    assert bad == []


@pytest.mark.parametrize("entry", ["inspector.formats", "inspector.cli"])
def test_importing_the_format_layer_loads_no_qt(entry: str) -> None:
    code = (f"import sys, {entry}; from inspector.formats import registry; registry.readers(); "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120, check=True).stdout.strip()
    assert out == "[]"


def test_findings_document_is_generated_from_the_code() -> None:
    from inspector.formats import rulebook

    committed = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    assert committed == rulebook.render(), (
        "docs/findings.md is stale: python -m inspector.formats.rulebook > docs/findings.md")


def test_every_rule_names_its_source_and_says_what_it_checks() -> None:
    from inspector.formats import rulebook

    for code, r in rulebook.declare_all().items():
        assert r.source.strip() and r.summary.strip(), code
