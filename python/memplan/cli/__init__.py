"""memplan's command-line tools: memplan-opt, memplan-check and memplan.

Their modules import what a command needs in the function that runs it
(the MLIR bindings' Python layer, which imports numpy; the analyses; the
numerics harness): memplan-opt starts in the bindings' own time, and
``memplan`` builds every subcommand's parser before it knows which one runs.
test_import_graph.py allows function-local imports here for that reason.
"""
