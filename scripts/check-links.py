#!/usr/bin/env python3
"""Every relative link in the README, CONTRIBUTING, CHANGELOG and docs/ points at a file that exists, and every
`#anchor` at a heading of that file (GitHub's slugs). Run by the test command.

    python3 scripts/check-links.py          # lists broken links, exits 1 if any
    python3 scripts/check-links.py --fix    # first points `#anchor` links at the page that now has the heading
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")


def pages():
    found = [os.path.join(ROOT, name) for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")]
    return [p for p in found if os.path.exists(p)] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    result, fence, counts = set(), False, {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("```"):
                fence = not fence
            elif not fence and re.match(r"#{1,6} ", line):
                base = slug(line.lstrip("#"))
                n = counts.get(base, 0)
                counts[base] = n + 1
                result.add(base if n == 0 else f"{base}-{n}")
    return result


def links(path):
    fence = False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.startswith("```"):
                fence = not fence
                continue
            if fence:
                continue
            for match in LINK.finditer(line):
                target = match.group(2)
                if re.match(r"[a-z]+:", target):
                    continue
                yield number, target


def fix(all_pages):
    owner = {}
    for page in all_pages:
        for anchor in anchors(page):
            owner.setdefault(anchor, page)
    for page in all_pages:
        own = anchors(page)
        text = open(page, encoding="utf-8").read()

        def point(match):
            label, target = match.group(1), match.group(2)
            if target.startswith("#") and target[1:] not in own and target[1:] in owner:
                relative = os.path.relpath(owner[target[1:]], os.path.dirname(page))
                return f"[{label}]({relative}{target})"
            return match.group(0)

        fixed = LINK.sub(point, text)
        if fixed != text:
            open(page, "w", encoding="utf-8").write(fixed)


def main():
    all_pages = pages()
    if "--fix" in sys.argv:
        fix(all_pages)
    broken = []
    for page in all_pages:
        for number, target in links(page):
            path, _, anchor = target.partition("#")
            file = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            where = f"{os.path.relpath(page, ROOT)}:{number}: {target}"
            if not os.path.exists(file):
                broken.append(f"{where} (no such file)")
            elif anchor and file.endswith(".md") and anchor not in anchors(file):
                broken.append(f"{where} (no heading #{anchor} in {os.path.relpath(file, ROOT)})")
    for line in broken:
        print(line)
    if broken:
        sys.exit(f"{len(broken)} broken links in the documentation")
    print(f"documentation links: {len(all_pages)} pages, every relative link resolves")


if __name__ == "__main__":
    main()
