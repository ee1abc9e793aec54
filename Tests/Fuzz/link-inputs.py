#!/usr/bin/env python3
"""What `make fuzz-build` links a fuzzer against: VaultCore and every target it depends on.

Usage: link-inputs.py BUILD_DIR objects|modulemaps|c-targets

The closure comes from the build plan SwiftPM writes for the build (`BUILD_DIR/description.json`,
its `targetDependencyMap`, which is already transitive), so that a new target, in vault or in a
dependency, is linked when VaultCore needs it and left out when it does not (the executable, the
test targets), with no list to keep by hand.

objects:    one quoted object file a line (a response file for swiftc). Swift targets give the
            objects their compile step declares, so an object left over from a renamed file is
            never linked; C targets have no such list in the plan, so their folder is searched.
modulemaps: the -fmodule-map-file flags for the module maps SwiftPM generated for the closure's
            targets (C targets, and the Objective-C header of Swift targets), one a line.
c-targets:  the closure's C targets, one a line. `swift build --target VaultCore` compiles only
            the C targets VaultCore imports; one that only another C target depends on (the
            shims' loader) gets no object until it is built by name.
"""

import json
import os
import sys

ROOT = "VaultCore"


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("objects", "modulemaps", "c-targets"):
        sys.exit(__doc__.split("\n\n")[1])
    build, mode = sys.argv[1], sys.argv[2]
    try:
        with open(os.path.join(build, "description.json")) as file:
            plan = json.load(file)
        targets = [ROOT] + plan["targetDependencyMap"][ROOT]
        swift = {command["moduleName"]: command for command in plan["swiftCommands"].values()}
    except (OSError, KeyError, ValueError) as error:
        sys.exit(f"link-inputs.py: cannot read the build plan in {build}: {error!r}")
    if mode == "c-targets":
        for target in targets:
            if target not in swift:
                print(target)
        return
    for target in targets:
        folder = os.path.join(build, target + ".build")
        if mode == "objects" and target in swift:
            for name in swift[target]["objects"]:
                print(f'"{name}"')
            continue
        for directory, _, files in sorted(os.walk(folder)):
            for name in sorted(files):
                if mode == "objects" and name.endswith(".o"):
                    print(f'"{os.path.join(directory, name)}"')
                elif mode == "modulemaps" and name == "module.modulemap":
                    print("-Xcc -fmodule-map-file=" + os.path.join(directory, name))


if __name__ == "__main__":
    main()
