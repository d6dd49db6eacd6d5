"""External transient storage: caller-provided memory for every transient
allocation of a function, with generated size-query functions.

A public ``func.func`` marks one argument ``%storage: memref<?xi8>
{memplan.transients}``. The passes verify that every transient allocation can
be placed in it, place them (packing lifetimes with the buffer-reuse packer),
thread sub-views of the storage through calls, and generate
``@<name>_transient_size`` functions that compute the bytes needed.
"""
