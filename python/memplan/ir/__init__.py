"""The IR bridge: MLIR modules to compact graphs and back."""

from memplan.ir.graph import (
    Graph,
    TypeInfo,
    extract_graph,
    function_ids,
    function_name,
    operation,
)
from memplan.ir.parse import ParseError, parse_source, split_input

__all__ = [
    "Graph",
    "TypeInfo",
    "ParseError",
    "extract_graph",
    "function_ids",
    "function_name",
    "operation",
    "parse_source",
    "split_input",
]
