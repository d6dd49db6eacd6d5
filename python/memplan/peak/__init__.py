"""Passes on tensor programs that lower the memory peak bufferization reaches.

* ``memplan-split-destinations`` (:mod:`.split_destinations`): one fresh
  destination per use, placed right before the op that writes it, so that a
  destination an importer CSE'd across layers no longer keeps one buffer live
  from the first layer to the last.
"""

from memplan.passes import Option

#: The option of the passes that ask the in-place analysis.
FUNCTION_BOUNDARIES = Option(
    "bufferize-function-boundaries", bool, True,
    "analyze as One-Shot Module Bufferize (function boundaries) bufferizes, as memplan-memory-pipeline does")
