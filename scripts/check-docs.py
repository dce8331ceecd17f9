#!/usr/bin/env python3
"""The DocC articles' code is the SeedExamples target's, which CI compiles and runs.

Each ```swift block of an article that says so (it names `SeedExamples`) must appear in Sources/SeedExamples line
for line: lines compared without their indentation, in order and contiguous, where the source may have `// harness`
lines in between (they hand results to the tests and are left out of the articles). Then, when the toolchain has
`docc`, the catalog is converted with HearthAuth's symbol graph and every warning (a broken link) is an error.

    python3 scripts/check-docs.py
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOG = os.path.join(ROOT, "Sources", "HearthAuth", "HearthAuth.docc")


def source_lines():
    lines = []
    for path in sorted(glob.glob(os.path.join(ROOT, "Sources", "SeedExamples", "*.swift"))):
        with open(path, encoding="utf-8") as handle:
            lines += [line.strip() for line in handle if "// harness" not in line]
    return lines


def contains(haystack, needle):
    return any(haystack[i:i + len(needle)] == needle for i in range(len(haystack) - len(needle) + 1))


def check_snippets():
    source = source_lines()
    failures, checked = [], 0
    for path in sorted(glob.glob(os.path.join(CATALOG, "*.md"))):
        with open(path, encoding="utf-8") as handle:
            article = handle.read()
        if "SeedExamples" not in article or os.path.basename(path) == "HearthAuth.md":
            continue
        for block in re.findall(r"```swift\n(.*?)```", article, re.S):
            checked += 1
            lines = [line.strip() for line in block.split("\n") if line.strip()]
            if not contains([l for l in source if l], lines):
                failures.append(f"{os.path.relpath(path, ROOT)}: a snippet is not in Sources/SeedExamples:\n{block}")
    for failure in failures:
        print(failure)
    if failures:
        sys.exit(f"{len(failures)} snippet(s) are not the SeedExamples target's code")
    print(f"{checked} article snippets are SeedExamples code (compiled by the target, run by SeedExamplesTests)")


def convert():
    docc = shutil.which("docc")
    if docc is None:
        print("docc is not in this toolchain: the catalog's links were not checked")
        return
    with tempfile.TemporaryDirectory() as work:
        graphs = os.path.join(work, "graphs")
        os.makedirs(graphs)
        # Its own build folder: other flags in .build would make the next test build compile everything again.
        subprocess.run(["swift", "build", "--scratch-path", os.path.join(ROOT, ".build-docs"), "--target", "HearthAuth",
                        "-Xswiftc", "-emit-symbol-graph",
                        "-Xswiftc", "-emit-symbol-graph-dir", "-Xswiftc", graphs], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
        for name in os.listdir(graphs):  # only HearthAuth's own graph: its dependencies' are not documented here
            if not name.startswith("HearthAuth"):
                os.remove(os.path.join(graphs, name))
        result = subprocess.run([docc, "convert", CATALOG, "--additional-symbol-graph-dir", graphs,
                                 "--fallback-display-name", "HearthAuth", "--fallback-bundle-identifier", "hearth.HearthAuth",
                                 "--output-path", os.path.join(work, "HearthAuth.doccarchive"), "--warnings-as-errors"],
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit("docc convert failed:\n" + result.stdout[-4000:] + result.stderr[-4000:])
        print("docc converted the catalog with no warnings")


if __name__ == "__main__":
    check_snippets()
    convert()
