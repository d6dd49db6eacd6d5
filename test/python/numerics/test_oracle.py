"""The run-time overlap oracle (memplan.numerics.oracle): independent of the plan,
of memplan's lifetimes and of its element-size model, it must flag views that
share bytes while both are live, and pass valid pools."""

from __future__ import annotations

from memplan.numerics import oracle

# Sized with ceil(bits / 8) = 10 bytes per f80 (memplan's old size model), the
# f80 view would end at 64 + 200 = 264 <= 272; LLVM lays f80 out at 16 bytes,
# so it runs to 384 and over the i48 view, which is live at the same time.
OLD_F80_LAYOUT = """
func.func @main(%x: memref<20xf32>, %out: memref<20xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  %c64 = arith.constant 64 : index
  %c272 = arith.constant 272 : index
  %pool = memref.alloc() : memref<392xi8>
  %b = memref.view %pool[%c64][] : memref<392xi8> to memref<20xf80>
  %c = memref.view %pool[%c272][] : memref<392xi8> to memref<20xi48>
  scf.for %i = %c0 to %c20 step %c1 {
    %e = memref.load %x[%i] : memref<20xf32>
    %be = arith.extf %e : f32 to f80
    memref.store %be, %b[%i] : memref<20xf80>
    %ci = arith.fptosi %e : f32 to i48
    memref.store %ci, %c[%i] : memref<20xi48>
  }
  scf.for %i = %c0 to %c20 step %c1 {
    %be = memref.load %b[%i] : memref<20xf80>
    %bf = arith.truncf %be : f80 to f32
    %ci = memref.load %c[%i] : memref<20xi48>
    %cf = arith.sitofp %ci : i48 to f32
    %s = arith.addf %bf, %cf : f32
    memref.store %s, %out[%i] : memref<20xf32>
  }
  memref.dealloc %pool : memref<392xi8>
  return
}
"""


def test_flags_views_sharing_bytes_while_live():
    run = oracle.run(OLD_F80_LAYOUT, "main")
    assert run.views == 2
    assert [o.bytes[1] - o.bytes[0] for o in run.overlaps] == [112]


def test_passes_the_same_views_at_disjoint_offsets():
    good = OLD_F80_LAYOUT.replace(
        "%c272 = arith.constant 272", "%c272 = arith.constant 384"
    ).replace("392xi8", "544xi8")
    run = oracle.run(good, "main")
    assert run.views == 2 and run.touches > 0 and run.ok


SEQUENTIAL = """
func.func @main(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %pool = memref.alloc() : memref<64xi8>
  %a = memref.view %pool[%c0][] : memref<64xi8> to memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  memref.copy %a, %out : memref<16xf32> to memref<16xf32>
  %b = memref.view %pool[%c0][] : memref<64xi8> to memref<16xf32>
  memref.copy %out, %b : memref<16xf32> to memref<16xf32>
  LATE_USE
  memref.copy %b, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %pool : memref<64xi8>
  return
}
"""


def test_same_bytes_one_after_the_other_are_fine():
    assert oracle.run(SEQUENTIAL.replace("LATE_USE", ""), "main").ok


def test_use_after_the_bytes_were_handed_on_is_flagged():
    late = "memref.copy %a, %x : memref<16xf32> to memref<16xf32>"
    run = oracle.run(SEQUENTIAL.replace("LATE_USE", late), "main")
    assert [o.bytes[1] - o.bytes[0] for o in run.overlaps] == [64]


# Views built by ops other than memref.view (ViewLikeOpInterface): the oracle
# measures the bytes each spans from its descriptor at run time. %a is a 4x4
# window of rows 16 bytes apart (1 + 3 * 16 + 3 = 52 bytes from byte 0); %b
# starts at byte B_START.
OTHER_VIEWS = """
func.func @main(%x: memref<4x4xi8>, %y: memref<12xi8>, %out: memref<4x4xi8>, %out2: memref<12xi8>) {
  %pool = memref.alloc() : memref<64xi8>
  %a = memref.reinterpret_cast %pool to offset: [0], sizes: [4, 4], strides: [16, 1]
      : memref<64xi8> to memref<4x4xi8, strided<[16, 1]>>
  %b = memref.subview %pool[B_START] [12] [1] : memref<64xi8> to memref<12xi8, strided<[1], offset: B_START>>
  memref.copy %x, %a : memref<4x4xi8> to memref<4x4xi8, strided<[16, 1]>>
  memref.copy %y, %b : memref<12xi8> to memref<12xi8, strided<[1], offset: B_START>>
  memref.copy %a, %out : memref<4x4xi8, strided<[16, 1]>> to memref<4x4xi8>
  memref.copy %b, %out2 : memref<12xi8, strided<[1], offset: B_START>> to memref<12xi8>
  memref.dealloc %pool : memref<64xi8>
  return
}
"""


def test_flags_subview_and_reinterpret_cast_views_sharing_bytes():
    run = oracle.run(OTHER_VIEWS.replace("B_START", "50"), "main")
    assert run.views == 2
    assert [o.bytes[1] - o.bytes[0] for o in run.overlaps] == [2]


def test_passes_subview_and_reinterpret_cast_views_side_by_side():
    run = oracle.run(OTHER_VIEWS.replace("B_START", "52"), "main")
    assert run.views == 2 and run.touches > 0 and run.ok


# Windows the program takes into one placed buffer (%v) overlap each other
# and %v, all live at once: the program's own aliasing, not two placements.
WINDOWS = """
func.func @main(%x: memref<16xi8>, %out: memref<16xi8>) {
  %c0 = arith.constant 0 : index
  %pool = memref.alloc() : memref<64xi8>
  %v = memref.view %pool[%c0][] : memref<64xi8> to memref<16xi8>
  %w1 = memref.subview %v[0] [12] [1] : memref<16xi8> to memref<12xi8, strided<[1]>>
  %w2 = memref.subview %v[4] [12] [1] : memref<16xi8> to memref<12xi8, strided<[1], offset: 4>>
  %c = memref.cast %v : memref<16xi8> to memref<?xi8>
  memref.copy %x, %v : memref<16xi8> to memref<16xi8>
  %e = memref.load %w2[%c0] : memref<12xi8, strided<[1], offset: 4>>
  memref.store %e, %w1[%c0] : memref<12xi8, strided<[1]>>
  %n = memref.dim %c, %c0 : memref<?xi8>
  memref.copy %v, %out : memref<16xi8> to memref<16xi8>
  memref.dealloc %pool : memref<64xi8>
  return
}
"""


def test_windows_into_one_placed_buffer_are_not_placements():
    run = oracle.run(WINDOWS, "main")
    assert run.views == 1 and run.touches > 0 and run.ok
