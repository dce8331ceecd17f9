#!/usr/bin/env python3
"""HearthAuth's public API against FirebaseAuth 12's, declaration by declaration.

Both sides are read the same way: each Swift file with its `#if` blocks resolved for one Apple platform (iOS unless
told), then parsed by `swiftc -dump-parse`; the public and open declarations (and the requirements and cases of public
protocols and enums) are kept as a symbol (`Auth.signIn(withEmail:password:)`) and a normalised signature.

    python3 scripts/parity.py extract --firebase DIR > docs/parity/firebaseauth-12.19.0.json
        # DIR: a firebase-ios-sdk checkout at CocoaPods-12.19.0 (its FirebaseAuth/Sources/Swift, and the globals of
        # its public Objective-C headers, are read)
    python3 scripts/parity.py check      # counts, and fails if the list of differences in docs/hearthauth.md is out of date
    python3 scripts/parity.py readme     # rewrites that list in docs/hearthauth.md
    python3 scripts/parity.py parse      # parses HearthAuth's Apple-only branches (iOS and macOS) with swiftc

The committed data holds names and signatures only, no code.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "docs", "parity", "firebaseauth-12.19.0.json")
README = os.path.join(ROOT, "docs", "hearthauth.md")
HEARTH = os.path.join(ROOT, "Sources", "HearthAuth")
BEGIN, END = "<!-- parity:begin -->", "<!-- parity:end -->"
# NSSecureCoding and NSObject plumbing: counted apart (Apple platforms only, and not what apps call by hand).
PLUMBING = {"encode(with:)", "init(coder:)", "supportsSecureCoding", "copy(with:)", "isEqual(_:)", "hash", "description"}


def is_plumbing(symbol):
    """Archiving, NSObject overrides, and the `__`-prefixed names FirebaseAuth keeps for Objective-C."""
    member = symbol.rsplit(".", 1)[-1]
    return member in PLUMBING or member.startswith("__")
APPLE = {"iOS": "iOS", "macOS": "macOS"}


# MARK: #if, resolved for one platform

def condition(text, platform):
    """The value of an `#if` condition on `platform` (Apple frameworks importable, Linux-only modules not)."""
    def os_(m):
        name = m.group(1)
        return str(name == platform or (platform == "iOS" and name == "iOS"))
    expr = re.sub(r"\bos\((\w+)\)", os_, text)
    expr = re.sub(r"\btargetEnvironment\((\w+)\)", "False", expr)
    expr = re.sub(r"\bcanImport\(([\w.]+)(?:,[^)]*)?\)",
                  lambda m: str(m.group(1) not in {"FoundationNetworking", "Glibc", "Musl", "WinSDK", "Android"}), expr)
    expr = re.sub(r"\b(?:swift|compiler)\([^)]*\)", "True", expr)
    expr = re.sub(r"\barch\([^)]*\)", "True", expr)
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    expr = re.sub(r"\b(?!True\b|False\b|and\b|or\b|not\b)[A-Za-z_]\w*\b", "False", expr)  # custom flags: unset
    return bool(eval(expr, {"__builtins__": {}}))  # noqa: S307 - only True/False/and/or/not remain


def resolve(source, platform):
    """The source with inactive `#if` clauses blanked and directives removed, line numbers kept."""
    out, stack = [], []  # stack of (taking now, some clause already taken)
    for line in source.split("\n"):
        stripped = line.strip()
        active = all(frame[0] for frame in stack)
        if stripped.startswith("#if ") or stripped.startswith("#if("):
            value = condition(stripped[3:].split("//")[0], platform)
            stack.append([value, value])
            out.append("")
        elif stripped.startswith("#elseif"):
            frame = stack[-1]
            value = not frame[1] and condition(stripped[7:].split("//")[0], platform)
            frame[0], frame[1] = value, frame[1] or value
            out.append("")
        elif stripped.startswith("#else"):
            frame = stack[-1]
            frame[0], frame[1] = not frame[1], True
            out.append("")
        elif stripped.startswith("#endif"):
            stack.pop()
            out.append("")
        else:
            out.append(line if active else "")
    return "\n".join(out)


# MARK: declarations

NODE = re.compile(r'^(\s*)\((\w+)(.*)$')
RANGE = re.compile(r'range=\[[^:\]]*:(\d+):(\d+) - line:(\d+):(\d+)\]')
TYPES = {"class_decl", "struct_decl", "enum_decl", "protocol_decl", "extension_decl", "actor_decl"}
MEMBERS = {"func_decl", "var_decl", "constructor_decl", "subscript_decl", "enum_element_decl", "typealias_decl",
           "associated_type_decl"} | TYPES


def nodes(dump):
    """(depth, kind, rest-of-line) for each node line of a -dump-parse tree."""
    for line in dump.split("\n"):
        match = NODE.match(line)
        if match:
            yield len(match.group(1)) // 2, match.group(2), match.group(3)


def header(lines, row, col):
    """A declaration's text from its name to its body (or the end of the statement), on one line."""
    text, depth = "", 0
    start = lines[row - 1][:col - 1]
    # Back to the line's start, to keep `func`, `static`, `init`… (attributes are dropped later).
    text = start.lstrip()
    for line in lines[row - 1:row + 20]:
        segment = line[col - 1:] if line is lines[row - 1] else line
        for char in segment:
            if char in "([<":
                depth += 1
            elif char in ")]>" and depth > 0:
                depth -= 1
            elif char == "{" and depth == 0:
                return text
            elif char == "=" and depth == 0 and not re.search(r"(func|init|subscript)\b", text):
                return text
            text += char
        text += " "
        if depth == 0 and re.search(r"(var|let|case|typealias)\b", text):
            return text
    return text


def normalise(signature):
    s = re.sub(r"//.*", "", signature)
    s = re.sub(r"@\w+(\([^()]*(\([^()]*\))*[^()]*\))?", "", s)  # attributes
    s = re.sub(r"\b(open|public|final|override|required|convenience|nonisolated|dynamic|weak|unowned|lazy|"
               r"mutating|indirect|package)\b", "", s)
    s = re.sub(r"\b(internal|private|fileprivate)\(set\)", "", s)
    s = re.sub(r"\bclass (func|var)\b", r"static \1", s)
    s = re.sub(r"\blet\b", "var", s)  # a read-only property either way, for a caller
    s = re.sub(r"\bany\s+", "", s)
    s = re.sub(r"\((\w+)\)\?", r"\1?", s)
    s = re.sub(r"\bSwift\.|\bFoundation\.", "", s)
    s = re.sub(r"\s+", " ", s).strip()
    # Parameters: labels and types only (no internal names, no default values).
    match = re.match(r"^(.*?\w[^(]*)\((.*)\)(.*)$", s)
    if match and re.match(r".*\b(func|init|subscript)\b", match.group(1)):
        params, depth, current = [], 0, ""
        for char in match.group(2):
            if char in "([<":
                depth += 1
            elif char in ")]>":
                depth -= 1
            if char == "," and depth == 0:
                params.append(current)
                current = ""
            else:
                current += char
        if current.strip():
            params.append(current)
        cleaned = []
        for param in params:
            param = re.split(r"\s=\s|=(?=[^>])", param, maxsplit=1)[0].strip()
            names, _, kind = param.partition(":")
            label = names.split()[0] if names.split() else "_"
            cleaned.append(f"{label}: {kind.strip()}")
        s = f"{match.group(1).strip()}({', '.join(cleaned)}){match.group(3)}"
    return re.sub(r"\s+", " ", s.replace("( ", "(").replace(" )", ")")).strip()


def declarations(folder, platform="iOS"):
    """{symbol: [signatures]} of the public API of the Swift files under `folder`."""
    found = {}
    for base, _, files in sorted(os.walk(folder)):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(base, name)
            with open(path, encoding="utf-8") as handle:
                source = resolve(handle.read(), platform)
            lines = source.split("\n")
            with tempfile.NamedTemporaryFile("w", suffix=".swift", delete=False) as temp:
                temp.write(source)
            try:
                dump = subprocess.run(["swiftc", "-dump-parse", temp.name], capture_output=True, text=True).stdout
            finally:
                os.unlink(temp.name)
            collect(list(nodes(dump)), lines, found)
    return found


def collect(tree, lines, found):
    """Walks one file's nodes, keeping public members with their enclosing type's name."""
    scope = []  # (depth, type name, members public by default, extension's access)
    for index, (depth, kind, rest) in enumerate(tree):
        while scope and scope[-1][0] >= depth:
            scope.pop()
        if kind not in MEMBERS:
            continue
        parent_depth = scope[-1][0] if scope else 0
        if depth != parent_depth + 1:
            continue  # a local declaration inside a body
        # Its attribute lines follow at depth + 1.
        attrs = []
        for later in tree[index + 1:]:
            if later[0] <= depth:
                break
            if later[0] == depth + 1:
                attrs.append((later[1], later[2]))
        access = next((re.search(r"access_level=(\w+)", a[1]).group(1) for a in attrs if a[0] == "access_control_attr"), None)
        unavailable = any(a[0] == "available_attr" and ("domainIdentifier=* unavailable" in a[1]
                                                         or "domainIdentifier=swift introduced=1000" in a[1]) for a in attrs)
        spi = any(a[0] in {"spi_accessor_attr", "spi_attr"} for a in attrs)
        names = re.findall(r'"([^"]*)"', rest)
        name = names[0] if names else ""
        implicit = scope[-1][2] if scope else False
        public = access in {"public", "open"} or (access is None and implicit)
        if kind in TYPES:
            if kind == "extension_decl":
                extended = re.search(r'(?:unbound )?"([^"]+)"', rest)
                full = extended.group(1) if extended else name
                scope.append((depth, full, access in {"public", "open"}, access))
            else:
                full = scope[-1][1] + "." + name if scope else name
                # Protocol requirements take the protocol's access (enum cases take their enum's, below).
                scope.append((depth, full, public and kind == "protocol_decl", access))
                if public and not unavailable and not spi:
                    found.setdefault(full, []).append(kind.replace("_decl", ""))
            continue
        if kind == "enum_element_decl":
            owner = scope[-1] if scope else None
            public = owner is not None and owner[3] in {"public", "open"}
        if not public or unavailable or spi or "implicit" in rest.split('"')[0]:
            continue
        owner = scope[-1][1] if scope else ""
        symbol = (owner + "." if owner else "") + name
        match = RANGE.search(rest)
        signature = normalise(header(lines, int(match.group(1)), int(match.group(2)))) if match else name
        if kind == "enum_element_decl":
            signature = "case " + name
        found.setdefault(symbol, [])
        if signature not in found[symbol]:
            found[symbol].append(signature)


# MARK: commands

def header_globals(folder):
    """The Objective-C globals FirebaseAuth's public headers give Swift names (`EmailAuthProviderID`, the
    `AuthStateDidChange` notification name): still what older apps write."""
    found = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".h"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            text = handle.read()
        for match in re.finditer(r"extern\s+NSString\s*\*\s*const\s+(?:_Nonnull\s+)?FIR\w+\s+NS_SWIFT_NAME\(\s*(\w+)\s*\)", text):
            found[match.group(1)] = [f"var {match.group(1)}: String"]
        for match in re.finditer(r"extern\s+const\s+NSNotificationName\s+FIR\w+\s+NS_SWIFT_NAME\(\s*(\w+)\s*\)", text):
            found["NSNotification.Name." + match.group(1)] = [f"static var {match.group(1)}: NSNotification.Name"]
    return found


def extract(firebase):
    folder = os.path.join(firebase, "FirebaseAuth", "Sources", "Swift")
    api = declarations(folder)
    api.update(header_globals(os.path.join(firebase, "FirebaseAuth", "Sources", "Public", "FirebaseAuth")))
    json.dump({"source": "firebase-ios-sdk CocoaPods-12.19.0: FirebaseAuth/Sources/Swift (iOS branches) and the "
                         "Swift names of FirebaseAuth/Sources/Public/FirebaseAuth's globals",
               "declarations": {k: api[k] for k in sorted(api)}}, sys.stdout, indent=1, sort_keys=False)
    print()


def aliases(folder):
    """HearthAuth's public type aliases (`AuthDataResultCallback`), normalised, to expand in its signatures."""
    found = {}
    for base, _, files in os.walk(folder):
        for name in files:
            if name.endswith(".swift"):
                with open(os.path.join(base, name), encoding="utf-8") as handle:
                    source = resolve(handle.read(), "iOS")
                    for match in re.finditer(r"^public typealias (\w+) = (.+)$", source, re.M):
                        found[match.group(1)] = normalise(match.group(2))
    return found


def expand(signature, table):
    for alias, target in table.items():
        wrapped = f"({target})" if "->" in target else target
        signature = re.sub(rf"\b{alias}\?", wrapped + "?", signature)
        signature = re.sub(rf"\b{alias}\b", target, signature)
    return signature


KINDS = {"class", "struct", "enum", "protocol", "actor", "extension"}


def compare():
    with open(DATA, encoding="utf-8") as handle:
        firebase = json.load(handle)["declarations"]
    table = aliases(HEARTH)
    hearth = {k: [expand(s, table) for s in v] for k, v in declarations(HEARTH).items()}
    plumbing = {k for k in firebase if is_plumbing(k)}
    counted = {k: v for k, v in firebase.items() if k not in plumbing}
    missing = sorted(k for k in counted if k not in hearth)
    differs = []
    kinds = []  # a type declared as another kind (a class here, a struct there): callers see the same names
    for symbol in sorted(counted):
        if symbol in hearth and not set(counted[symbol]) & set(hearth[symbol]):
            entry = (symbol, counted[symbol][0], hearth[symbol][0])
            (kinds if entry[1] in KINDS and entry[2] in KINDS else differs).append(entry)
    return firebase, counted, plumbing, hearth, missing, differs, kinds


def report_lines(missing, differs, kinds):
    lines = []
    if missing:
        lines.append("Not in HearthAuth:")
        lines.append("")
        lines += [f"- `{symbol}`" for symbol in missing]
        lines.append("")
    if differs:
        lines.append("In HearthAuth with another signature (FirebaseAuth → HearthAuth):")
        lines.append("")
        lines += [f"- `{symbol}`: `{theirs}` → `{ours}`" for symbol, theirs, ours in differs]
        lines.append("")
    if kinds:
        lines.append("Types of another kind (the same names for callers; a subclass or an identity check differs):")
        lines.append("")
        lines += [f"- `{symbol}`: {theirs} → {ours}" for symbol, theirs, ours in kinds]
        lines.append("")
    if not lines:
        lines = ["Every declaration of FirebaseAuth 12 that apps call is in HearthAuth with the same signature.", ""]
    return lines


def check(write):
    firebase, counted, plumbing, hearth, missing, differs, kinds = compare()
    present = len(counted) - len(missing)
    same = present - len(differs)
    print(f"FirebaseAuth 12.19 public declarations: {len(firebase)} "
          f"({len(counted)} counted, {len(plumbing)} archiving and NSObject plumbing left out)")
    print(f"in HearthAuth: {present} of {len(counted)} ({100 * present / len(counted):.1f}%), "
          f"{same} with the same signature ({100 * same / len(counted):.1f}%)")
    print(f"plumbing in HearthAuth: {len([k for k in plumbing if k in hearth])} of {len(plumbing)}")
    block = "\n".join([BEGIN, ""] + report_lines(missing, differs, kinds) + [END])
    with open(README, encoding="utf-8") as handle:
        readme = handle.read()
    if BEGIN not in readme:
        sys.exit("docs/hearthauth.md has no parity block (" + BEGIN + ")")
    current = readme[readme.index(BEGIN):readme.index(END) + len(END)]
    if write:
        with open(README, "w", encoding="utf-8") as handle:
            handle.write(readme.replace(current, block))
        print("docs/hearthauth.md updated")
    elif current != block:
        sys.stdout.write("\n".join(report_lines(missing, differs, kinds)))
        sys.exit("docs/hearthauth.md's list of differences is out of date: run python3 scripts/parity.py readme")


def parse():
    """Each HearthAuth file with its Apple branches selected must parse."""
    failures = 0
    for platform in APPLE:
        for base, _, files in os.walk(HEARTH):
            for name in files:
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(base, name)
                with open(path, encoding="utf-8") as handle:
                    source = resolve(handle.read(), platform)
                with tempfile.NamedTemporaryFile("w", suffix=".swift", delete=False) as temp:
                    temp.write(source)
                result = subprocess.run(["swiftc", "-parse", temp.name], capture_output=True, text=True)
                os.unlink(temp.name)
                if result.returncode != 0:
                    failures += 1
                    print(f"{platform}: {os.path.relpath(path, ROOT)} does not parse:\n"
                          + result.stderr.replace(temp.name, os.path.relpath(path, ROOT)))
    if failures:
        sys.exit(f"{failures} file(s) do not parse with Apple branches selected")
    print(f"HearthAuth parses with the {' and '.join(APPLE)} branches selected")


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "check"
    if command == "extract":
        extract(sys.argv[sys.argv.index("--firebase") + 1])
    elif command == "check":
        check(write=False)
    elif command == "readme":
        check(write=True)
    elif command == "parse":
        parse()
    else:
        sys.exit(__doc__)
