"""What the report says is stored at the peak, and the floor in any order.

Small memref programs whose peaks are worked out by hand (f32: a
``memref<1024xf32>`` is 4096 bytes, ``memref<4x1024xf32>`` 16384): each
checks :mod:`memplan.lifetimes.stored` through the report's JSON object and
its text.
"""

from __future__ import annotations

from mlir import ir

from memplan.ir.parse import parse_source
from memplan.lifetimes.analysis import analyze_module
from memplan.lifetimes.stored import floor_at
from memplan.liveness.report import format_function, function_dict

_MAPS = """
#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
"""

#: ``%t`` (16384 B) made by op B from ``{b_input}`` (negated, so that it is
#: not a permuted copy), reduced into ``%out`` by op C, then D adds
#: ``{d_inputs}`` into ``%out2``. ``{before}`` runs first.
_BODY = """
func.func @{name}(%a: memref<1024xf32>, %out: memref<1024xf32>, %out2: memref<1024xf32>) {{
  %c0 = arith.constant 0.0 : f32
  {before}
  %t = memref.alloc() : memref<4x1024xf32>
  linalg.generic {{indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}}
      ins({b_input} : memref<1024xf32>) outs(%t : memref<4x1024xf32>) {{
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  }}
  linalg.generic {{indexing_maps = [#id2, #row], iterator_types = ["reduction", "parallel"]}}
      ins(%t : memref<4x1024xf32>) outs(%out : memref<1024xf32>) {{
  ^bb0(%i: f32, %o: f32):
    %s = arith.addf %i, %o : f32
    linalg.yield %s : f32
  }}
  memref.dealloc %t : memref<4x1024xf32>
  linalg.add ins({d_inputs} : memref<1024xf32>, memref<1024xf32>) outs(%out2 : memref<1024xf32>)
  {after}
  return
}}
"""


def _text(name: str, before: str, b_input: str, d_inputs: str, after: str) -> str:
    return _MAPS + _BODY.format(
        name=name, before=before, b_input=b_input, d_inputs=d_inputs, after=after
    )


def _report(*args: str) -> dict:
    with ir.Context():
        (lt,) = analyze_module(parse_source(_text(*args)))
        return function_dict(lt)


def _floor_at_reduction(*args: str) -> tuple[int, int]:
    """(bytes, crossing bytes) of the floor at op C."""
    with ir.Context():
        (lt,) = analyze_module(parse_source(_text(*args)))
        g = lt.graph
        generics = [o for o in range(g.num_ops) if g.names[g.op_name[o]] == "linalg.generic"]
        floor = floor_at(lt, generics[1])
        assert floor.at.op == "linalg.generic"
        return floor.bytes, floor.crossing_bytes


_X = "%x = memref.alloc() : memref<1024xf32>\n  linalg.copy ins(%a : memref<1024xf32>) outs(%x : memref<1024xf32>)"
_Z = "%z = memref.alloc() : memref<1024xf32>\n  linalg.fill ins(%c0 : f32) outs(%z : memref<1024xf32>)"


def test_floor_below_the_peak_when_an_order_avoids_it():
    # %x (4096 B) is written before %t and read after it, but nothing %t's
    # ops depend on writes it: written after them, it never meets %t.
    doc = _report("free", _X, "%a", "%x, %out", "memref.dealloc %x : memref<1024xf32>")
    assert doc["heap_peak"]["dataflow_bound"] == 20480
    floor = doc["floor"]
    assert floor["op"] == "linalg.generic" and floor["bytes"] == 16384 and floor["crossing"] == []
    assert floor["highest"]["bytes"] == 16384
    assert "floor in any order 16384 at linalg.generic" in format_function(doc)
    assert _floor_at_reduction("free", _X, "%a", "%x, %out", "") == (16384, 0)


def test_floor_counts_contents_that_must_cross():
    # Op B reads %x and D reads C's output: %x is written before B and read
    # after C whatever the order, so it crosses C.
    doc = _report("forced", _X, "%x", "%x, %out", "memref.dealloc %x : memref<1024xf32>")
    floor = doc["floor"]
    assert floor["bytes"] == 20480 and floor["touched_bytes"] == 20480  # B touches both
    top = floor["highest"]
    assert top["bytes"] == 20480
    # At C (the reduction), %t is touched and %x crosses.
    assert _floor_at_reduction("forced", _X, "%x", "%x, %out", "") == (20480, 4096)
    assert doc["stored_at_peak"] == []  # %x is a copy of an argument, not cheap


def test_fill_held_across_the_peak_is_cheap_to_recompute():
    # %z, zero-filled, is held across %t's ops for D: filled again before D,
    # it would not be live at the peak. %x, a copy of an argument, is not
    # cheap to recompute.
    doc = _report(
        "held",
        _Z + "\n  " + _X,
        "%a",
        "%z, %x",
        "memref.dealloc %z : memref<1024xf32>\n  memref.dealloc %x : memref<1024xf32>",
    )
    assert doc["peak_site"]["bytes"] == 24576
    (stored,) = doc["stored_at_peak"]
    assert stored["name"] == "%alloc" and stored["kind"] == "cheap to recompute"
    assert stored["saves"] == 4096 and stored["source"]["op"] == "linalg.fill"
    assert "read next by linalg.add" in stored["why"]
    text = format_function(doc)
    assert "stored at the peak that a rewrite could leave out: 1 buffers" in text
    assert "%alloc (cheap to recompute, saves 4096 B)" in text


def test_fill_read_at_the_peak_is_not_listed():
    # The op at the peak reads the fill itself: it must be live there.
    doc = _report("touched", _Z, "%z", "%z, %out", "memref.dealloc %z : memref<1024xf32>")
    assert doc["peak_site"]["bytes"] == 20480
    assert doc["stored_at_peak"] == []
    assert "stored at the peak" not in format_function(doc)


def test_fill_partly_overwritten_before_the_peak_is_not_listed():
    # Between the fill and the peak, part of %z is copied from an argument:
    # its contents are not made from constants alone.
    part = (
        "%zs = memref.subview %z[0] [512] [1] : memref<1024xf32> to memref<512xf32, strided<[1]>>\n"
        "  %as = memref.subview %a[0] [512] [1] : memref<1024xf32> to memref<512xf32, strided<[1]>>\n"
        "  memref.copy %as, %zs : memref<512xf32, strided<[1]>> to memref<512xf32, strided<[1]>>"
    )
    doc = _report(
        "partly", _Z + "\n  " + part, "%a", "%z, %out", "memref.dealloc %z : memref<1024xf32>"
    )
    assert doc["peak_site"]["bytes"] == 20480
    assert doc["stored_at_peak"] == []
    control = _report("whole", _Z, "%a", "%z, %out", "memref.dealloc %z : memref<1024xf32>")
    assert [s["name"] for s in control["stored_at_peak"]] == ["%alloc"]
