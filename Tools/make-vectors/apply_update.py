#!/usr/bin/env python3
"""Applies an update archive with this reference implementation (spec §13.1), as `webarc apply` does.

    python3 Tools/make-vectors/apply_update.py UPDATE.webarc BASE.webarc [BASE.webarc ...] -o OUT.webarc

The bases are given nearest first, as the update names them. The result is written again from the
layered view by the target's writer recipe (level, dictionary interval, insertion order, Zstandard
level, anchor rule) and checked against the target's archive digest, length and body data digest
before it is kept (a temporary file, then a rename). Exit 0 with one line on stdout; exit 65 with
the spec's error code and its message on stderr when the stack or the result is refused, 66 when
a file cannot be read, 64 for a wrong command line. A second
implementation of the writer rules: what it writes must be what `webarc` writes, byte for byte.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers  # noqa: E402
from webarc_reader import Archive, WebarcError  # noqa: E402


def main(argv: list[str]) -> int:
    if "-o" not in argv or argv.index("-o") + 1 >= len(argv):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 64
    at = argv.index("-o")
    output, paths = argv[at + 1], argv[:at] + argv[at + 2:]
    if len(paths) < 2:
        print("apply_update: give the update and at least one base", file=sys.stderr)
        return 64
    try:
        stack = [Archive(open(path, "rb").read()) for path in paths]
        result = layers.apply(stack)
    except WebarcError as error:
        print(f"apply_update: {error.code} at {error.offset}: {error.message}", file=sys.stderr)
        return 65
    except ValueError as error:                                     # an archive that is no update
        print(f"apply_update: {paths[0]}: {error}", file=sys.stderr)
        return 65
    except OSError as error:
        print(f"apply_update: {error}", file=sys.stderr)
        return 66
    temporary = output + ".tmp-apply"
    with open(temporary, "wb") as out:
        out.write(result)
    os.replace(temporary, output)
    print(f"{output}: {len(result)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
