"""One declaration per pass: the registry, ``--help`` and the README agree.

Each pass and its options are declared once (``memplan/passes/declarations.py``,
``register_pass`` with ``Option``s). From that declaration MLIR's registry
gets the pass and its typed options (``--help``, ``--list-passes``), Python
gets its wrapper (``memplan.passes.<name>``), and the README's pass table is
checked against it here: adding an option is its ``Option(...)`` and the
body that reads it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

from memplan.passes import registered_passes

ROOT = Path(__file__).resolve().parents[3]

#: Rows that stand for options they do not list, and why.
ABRIDGED = {
    # Upstream's one-shot-bufferize options, all of them, with their meaning.
    "memplan-one-shot-bufferize": "{...}",
}

ROW = re.compile(r"^\| `(memplan-[a-z-]+(?:\{(?:[^`\\]|\\.)*\})?)` \|")


def readme_rows() -> dict[str, str]:
    """The README's pass table: pass argument -> the pipeline element its row
    shows (markdown's ``\\|`` read as ``|``)."""
    text = (ROOT / "README.md").read_text()
    table = text[text.index("\n## Passes\n") :]
    table = table[: table.index("\n#", 1)]
    rows = {}
    for line in table.splitlines():
        m = ROW.match(line)
        if m:
            element = m.group(1).replace("\\|", "|")
            rows[element.partition("{")[0]] = element
    return rows


def test_readme_lists_every_pass_with_its_declared_options() -> None:
    rows = readme_rows()
    declared = {p.argument: p for p in registered_passes()}
    assert len(declared) >= 20
    assert sorted(rows) == sorted(declared), "README pass table and registry differ"
    wrong = {
        name: (rows[name], info.signature)
        for name, info in declared.items()
        if rows[name] != info.signature and rows[name] != name + ABRIDGED.get(name, "\0")
    }
    assert not wrong, "README rows that differ from their declaration (row, declared):\n" + (
        "\n".join(f"{k}: {a}\n  {b}" for k, (a, b) in wrong.items())
    )


def test_signature_renders_each_kind_of_option() -> None:
    by_name = {p.argument: p for p in registered_passes()}
    assert by_name["memplan-verify-deallocation"].signature == "memplan-verify-deallocation"
    liveness = by_name["memplan-buffer-liveness"].signature
    assert (
        liveness
        == "memplan-buffer-liveness{format=text|json|none output=- remarks=false capacity=}"
    )


def test_one_declaration_adds_an_option_everywhere(tmp_path: Path) -> None:
    # A pass declared with a new option, in one place: MLIR's --help lists it
    # with its help text, the pipeline parser takes it, the body gets it
    # typed, and the Python wrapper checks it.
    script = tmp_path / "declare.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            import memplan
            from memplan.passes import Option, register_pass

            seen = []

            @register_pass(
                "memplan-test-one-option",
                "Test pass with one declared option",
                options=[Option("fresh-count", int, 7, "a freshly declared count")],
            )
            def run(module, ctx):
                seen.append(ctx.options["fresh_count"])

            if sys.argv[1] == "help":
                from memplan.cli.opt import main
                sys.argv = ["memplan-opt", "--help"]
                main()
            from mlir import ir
            with ir.Context():
                m = ir.Module.parse("module {}")
                memplan.run_pipeline(m, "builtin.module(memplan-test-one-option{fresh-count=12})")
                element = memplan.passes.test_one_option().pipeline_text()
                memplan.run_pipeline(m, f"builtin.module({element})")
            try:
                memplan.passes.test_one_option(fresh_count="many")
            except memplan.passes.PassOptionError as e:
                print("rejected:", e)
            print("seen:", seen)
            """
        )
    )
    help_text = subprocess.run(
        [sys.executable, str(script), "help"], capture_output=True, text=True, timeout=120
    )
    assert help_text.returncode == 0, help_text.stderr[-2000:]
    block = help_text.stdout[help_text.stdout.index("--memplan-test-one-option") :]
    assert re.search(r"--fresh-count=<long>\s+- a freshly declared count", block)
    run = subprocess.run(
        [sys.executable, str(script), "run"], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "seen: [12, 7]" in run.stdout
    assert "rejected:" in run.stdout and "fresh-count" in run.stdout
