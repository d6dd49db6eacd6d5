"""Textual pass pipelines that mix upstream MLIR passes and memplan passes.

``builtin.module(one-shot-bufferize{...}, memplan-buffer-reuse, func.func(cse))``
is split into runs: consecutive upstream elements go to ``PassManager.add`` as
text, each memplan pass as a Python-defined pass. memplan passes work on the
whole module; one written inside ``func.func(...)`` splits that group around it
(it visits every function, which is what a function pass there would do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from mlir import ir, passmanager

from memplan import passes as registry


#: Upstream's reference bufferization (../shared/workloads/README.md):
#: identity-layout function boundaries, explicit deallocations, lifetimes
#: shortened.
UPSTREAM_BUFFERIZATION = (
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
    "buffer-deallocation-pipeline,func.func(optimize-allocation-liveness)"
)

#: The same with memplan's in-place analysis driving the bufferization (the
#: same memref IR, without upstream's analysis): what memplan's memory passes
#: expect as input.
BUFFERIZATION = UPSTREAM_BUFFERIZATION.replace("one-shot-bufferize{", "memplan-one-shot-bufferize{", 1)


class PipelineError(ValueError):
    """A pipeline that does not parse or names an unknown pass or option."""


@dataclass
class Element:
    """One pipeline element: ``name{options}(children)``."""

    name: str
    options: Optional[str] = None
    children: Optional[list["Element"]] = None

    def text(self) -> str:
        out = self.name
        if self.options is not None:
            out += "{" + self.options + "}"
        if self.children is not None:
            out += "(" + ",".join(c.text() for c in self.children) + ")"
        return out


def parse_pipeline(text: str) -> list[Element]:
    """Parse a textual pipeline into elements (no validation of names)."""
    parser = _Parser(text)
    elements = parser.parse_list()
    if parser.pos != len(text):
        parser.fail("unexpected character")
    return elements


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> None:
        raise PipelineError(f"invalid pass pipeline at column {self.pos + 1}: {what}\n{self.text}")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def parse_list(self) -> list[Element]:
        elements: list[Element] = []
        self.skip_space()
        if self.pos >= len(self.text) or self.text[self.pos] == ")":
            return elements
        while True:
            elements.append(self.parse_element())
            self.skip_space()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
                continue
            return elements

    def parse_element(self) -> Element:
        self.skip_space()
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "-_."
        ):
            self.pos += 1
        if start == self.pos:
            self.fail("expected a pass or op name")
        element = Element(self.text[start : self.pos])
        self.skip_space()
        if self.pos < len(self.text) and self.text[self.pos] == "{":
            element.options = self.parse_braced()
            self.skip_space()
        if self.pos < len(self.text) and self.text[self.pos] == "(":
            self.pos += 1
            element.children = self.parse_list()
            self.skip_space()
            if self.pos >= len(self.text) or self.text[self.pos] != ")":
                self.fail("expected ')'")
            self.pos += 1
        return element

    def parse_braced(self) -> str:
        depth = 0
        start = self.pos + 1
        quote = None
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if quote:
                quote = None if ch == quote else quote
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    self.pos += 1
                    return self.text[start : self.pos - 1]
            self.pos += 1
        self.fail("unterminated '{'")
        return ""


Step = Union[str, registry.MemplanPass]


def plan(text: str) -> list[Step]:
    """Resolve a pipeline into steps: upstream text runs and memplan passes.

    Raises :class:`PipelineError` for unknown memplan passes or options; upstream
    names are checked when the steps are added to a PassManager.
    """
    elements = parse_pipeline(text.strip())
    if len(elements) == 1 and elements[0].name == "builtin.module" and elements[0].children is not None:
        if elements[0].options is not None:
            raise PipelineError("builtin.module takes no options")
        elements = elements[0].children
    steps: list[Step] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            steps.append(",".join(pending))
            pending.clear()

    def visit(element: Element, anchor: Optional[str]) -> None:
        if element.children is not None:
            if not _contains_memplan(element):
                pending.append(element.text())
                return
            if anchor is not None:
                raise PipelineError(
                    f"memplan passes nest at most one level deep; '{element.name}' "
                    f"inside '{anchor}' holds one"
                )
            group: list[Element] = []
            for child in element.children:
                if _contains_memplan(child):
                    if group:
                        pending.append(Element(element.name, element.options, group).text())
                        group = []
                    visit(child, element.name)
                else:
                    group.append(child)
            if group:
                pending.append(Element(element.name, element.options, group).text())
            return
        if not element.name.startswith("memplan-"):
            pending.append(element.text())
            return
        info = registry.lookup(element.name)
        if info is None:
            raise PipelineError(f"'{element.name}' does not refer to a registered memplan pass")
        options = _parse_pass_options(info, element.options)
        if info.expand is not None:
            for sub in parse_pipeline(info.expand(info.resolve_options(options))):
                visit(sub, anchor)
            return
        flush()
        try:
            steps.append(registry.MemplanPass(info, options))
        except registry.PassOptionError as err:
            raise PipelineError(str(err)) from None

    for element in elements:
        visit(element, None)
    flush()
    return steps


def _contains_memplan(element: Element) -> bool:
    if element.children is None:
        return element.name.startswith("memplan-")
    return any(_contains_memplan(c) for c in element.children)


def _parse_pass_options(info: registry.PassInfo, text: Optional[str]) -> dict:
    try:
        return registry.parse_option_text(info, text)
    except registry.PassOptionError as err:
        raise PipelineError(f"{info.argument}: {err}") from None


def build_pass_manager(
    text: str, context: Optional[ir.Context] = None
) -> tuple[passmanager.PassManager, list[registry.MemplanPass]]:
    """A PassManager on builtin.module running ``text``, and its memplan passes."""
    steps = plan(text)
    pm = passmanager.PassManager("builtin.module", context=context)
    memplan_passes = []
    for step in steps:
        if isinstance(step, str):
            try:
                pm.add(step)
            except ValueError as err:
                raise PipelineError(str(err).strip()) from None
        else:
            step.add_to(pm)
            memplan_passes.append(step)
    return pm, memplan_passes


def run_pipeline(module: Union[ir.Module, ir.Operation], text: str) -> list[registry.MemplanPass]:
    """Run a mixed pipeline on ``module`` in place; returns the memplan passes run.

    Raises :class:`PipelineError` for a bad pipeline and ``mlir.ir.MLIRError``
    (with the passes' diagnostics) when a pass fails.
    """
    op = module.operation if isinstance(module, ir.Module) else module
    pm, memplan_passes = build_pass_manager(text, op.context)
    pm.run(op)
    return memplan_passes
