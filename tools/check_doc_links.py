#!/usr/bin/python3
"""Checks that every relative Markdown link in the project's documentation resolves.

Usage: tools/check_doc_links.py [ROOT] [FILE ...]
  (defaults: this checkout, and every .md file under it: README.md, docs/*.md and the folder
  READMEs, not those of build*/, out*/, hidden folders or third_party/; FILE is relative to ROOT)
For each inline link or image `[text](target)` and each reference definition `[id]: target`
outside fenced code blocks and inline code spans, a target that is not a URL (http, https,
mailto) must name a file or folder that exists, relative to the linking file's folder; a
`#anchor` on a Markdown file (or alone, on the linking file itself) must be one of that file's
headings, slugged as GitHub does (lower case, punctuation other than `-` and `_` dropped,
spaces to `-`, a repeated heading suffixed `-1`, `-2`, ...). Prints each broken link as
`FILE:LINE: target: reason` and exits 1 if there is one, 0 otherwise, 2 on bad usage.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def slug(heading):
    """GitHub's anchor for a heading's text: inline code and link markup kept as their text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def outside_code(lines):
    """Yields (line number, line) for the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield number, line


def anchors(path, cache):
    """The set of heading anchors of a Markdown file (duplicates numbered as GitHub does)."""
    if path not in cache:
        seen = {}
        found = set()
        with open(path, encoding="utf-8") as f:
            for _, line in outside_code(f.read().split("\n")):
                m = HEADING.match(line)
                if not m:
                    continue
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else "%s-%d" % (base, n))
        cache[path] = found
    return cache[path]


def check_file(root, rel, cache):
    """The broken links of one file, as printable lines."""
    path = os.path.join(root, rel)
    problems = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in outside_code(lines):
        code_free = re.sub(r"`[^`]*`", "", line)
        targets = [m.group(1) for m in INLINE.finditer(code_free)]
        m = REFDEF.match(code_free)
        if m:
            targets.append(m.group(1))
        for target in targets:
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # a URL (http, https, mailto): not checked offline
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = "%s:%d: %s" % (rel, number, target)
            if not os.path.exists(dest):
                problems.append("%s: no such file or folder" % where)
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest, cache):
                problems.append("%s: no heading with anchor #%s in %s" %
                                (where, anchor, os.path.relpath(dest, root)))
    return problems


def markdown_files(root):
    """README.md, docs/*.md and every other .md of the source folders (not build or output
    folders, hidden ones or third_party, whose files are not the project's)."""
    found = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build", "out", "__"))
                         and d != "third_party")
        found += [os.path.relpath(os.path.join(folder, n), root) for n in names if n.endswith(".md")]
    return sorted(found)


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    root = os.path.abspath(argv[0]) if argv else ROOT
    if not os.path.isdir(root):
        print("check_doc_links.py: %s is not a folder (expected the checkout's root)" % root,
              file=sys.stderr)
        return 2
    files = argv[1:] or markdown_files(root)
    cache = {}
    problems = []
    for rel in files:
        if not os.path.isfile(os.path.join(root, rel)):
            print("check_doc_links.py: %s: no such file under %s" % (rel, root), file=sys.stderr)
            return 2
        problems += check_file(root, rel, cache)
    for p in problems:
        print(p)
    print("%d file(s) checked, %d broken link(s)" % (len(files), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
