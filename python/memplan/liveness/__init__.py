"""Liveness reports: ``memplan-buffer-liveness`` and ``memplan report``.

The report of a function's buffers (:mod:`memplan.liveness.report`): their
lifetimes (:mod:`memplan.lifetimes`), its heap peaks with and without
memplan-buffer-reuse's plan (:mod:`memplan.reuse`) and the bounds below
them, as a text table or a JSON document. The pass
(:mod:`memplan.liveness.liveness_pass`) writes it and its statistics; the
report sits above both the analysis and the planner it reports on.
"""
