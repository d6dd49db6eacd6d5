"""Checks that the objects memplan links for memplan-opt's driver (from the
dev wheel's static archives) hold no second copy of anything that the
bindings' libMLIRPythonCAPI.so defines: no global function or variable
(a static data member, a function's static, a TypeID's storage) defined in
both. Two copies of a registry, a command-line flag or a TypeID would split
state between the driver and the library the bindings and memplan's passes
use. (Local symbols are private to their object; an object the library also
holds would show by its global ones.)

    python check_driver_objects.py NM LIBRARY INPUT...   (objects or archives)

Exit 1 with the symbols defined twice; otherwise prints what it compared.
Allowed in both: inline and template code (weak functions), vtables and
type names (constant tables), GNU-unique variables the library exports (the
dynamic linker keeps one of them), LLVM's ABI-check constant.
"""

from __future__ import annotations

import subprocess
import sys


def defined_symbols(nm: str, path: str) -> list[tuple[str, str, str]]:
    """(member, type letter, name) of every symbol defined in an object or archive."""
    out = subprocess.run(
        [nm, "-A", "--defined-only", path], capture_output=True, text=True, check=True
    ).stdout
    symbols = []
    for line in out.splitlines():
        where, _, rest = line.rpartition(": ") if ": " in line else line.rpartition(":")
        parts = rest.split()
        if len(parts) == 3:
            symbols.append((where, parts[1], parts[2]))
    return symbols


def harmless(kind: str, name: str, exported: set[str]) -> bool:
    if kind in "Ww":  # inline or template code, one definition as good as another
        return True
    if name.startswith(("_ZTV", "_ZTS", "_ZTI")):  # vtables, type names and infos: constants
        return True
    if kind == "u" and name in exported:  # GNU unique: one copy at run time
        return True
    return name.endswith("VerifyEnableABIBreakingChecksE") or name.endswith(
        "VerifyDisableABIBreakingChecksE"
    )


def main(argv: list[str]) -> int:
    nm, library, inputs = argv[1], argv[2], argv[3:]
    lib_symbols = {name for _, _, name in defined_symbols(nm, library)}
    out = subprocess.run(
        [nm, "-D", "--defined-only", library], capture_output=True, text=True, check=True
    ).stdout
    exported = {line.split()[-1] for line in out.splitlines() if line.split()}
    twice, shared_harmless, total, members = [], 0, 0, set()
    for path in inputs:
        for member, kind, name in defined_symbols(nm, path):
            members.add(member)
            total += 1
            # A local symbol (a file's static, an anonymous namespace, a
            # compiler's clone) is private to its object: the same name in
            # the library is another entity. A global one is the entity.
            if kind.islower() and kind != "u":
                continue
            if name not in lib_symbols:
                continue
            if harmless(kind, name, exported):
                shared_harmless += 1
            else:
                twice.append(f"{member}: {kind} {name}")
    if twice:
        print(
            f"memplan-opt's driver objects define {len(twice)} symbols that {library} defines too:"
        )
        print("\n".join(sorted(twice)))
        return 1
    print(
        f"memplan-opt driver: {len(members)} objects, {total} defined symbols; none defined in the "
        f"bindings' library but {shared_harmless} inline functions, vtables and constants"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
