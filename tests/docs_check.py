#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The documentation against the tree: tests/docs_check.py (tests/run.sh unit, no root).

Checks README.md and docs/*.md:
  links     every relative link resolves: the file exists, and a #anchor is a heading (or an
            <a id>) of the file it points into; every docs/*.md is linked from README.md
  paths     every repository path the text names (bpf/..., src/..., tools/..., docs/...) exists
  codemap   the README's map of the code (between <!-- codemap:begin --> and :end) names only
            paths that exist, and every top-level folder and file, and every file in bpf/,
            include/, src/ and tools/, is named there or under a named folder (a tools/
            subfolder covers its files; bpf/, include/ and src/ name their files, globs and
            {a,b} allowed)
  examples  what the tools print today: the ABI and version in every example; every status
            `exits` line names the reasons of include/cubic_abi.h, every `tunables` line the
            keys in order; and each block or table marked <!-- check: WHAT --> (see CHECKS
            below: make install/uninstall's listings, the unit, the command table of
            'cubicctl help', its presets, the exit reasons, the rules, the Prometheus families)
  commands  docs/COMMANDS.md's section of each command names every option of its --help usage,
            and names no option that no command has
Prints one line per failure (a table that differs: today's rows, ready to paste) and a
summary; exit 1 if anything failed. Needs ./cubicctl (make). Standard library only.
"""
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)

failures = []
passed = 0
skipped = set()


def fail(where, what):
    failures.append(f"{where}: {what}")


def ok():
    global passed
    passed += 1


def run(argv, env=None, check=True):
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {p.returncode}: {p.stderr.strip()}")
    return p


# ---------------------------------------------------------------- the tree

def tree_files():
    """Tracked and new (not ignored) files, relative to ROOT."""
    try:
        out = run(["git", "ls-files", "--cached", "--others", "--exclude-standard"]).stdout
        files = [f for f in out.splitlines() if os.path.exists(f)]
    except (RuntimeError, FileNotFoundError):
        files = []
        for d, subdirs, names in os.walk("."):
            subdirs[:] = [s for s in subdirs if s not in (".git", "build")]
            files += [os.path.relpath(os.path.join(d, n)) for n in names]
    return sorted(files)


FILES = tree_files()
TOP_DIRS = sorted({f.split("/")[0] for f in FILES if "/" in f})


def doc_files():
    return ["README.md"] + sorted(f for f in FILES if re.fullmatch(r"docs/[^/]+\.md", f))


def expand_braces(pat):
    m = re.search(r"\{([^{}]*)\}", pat)
    if not m:
        return [pat]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(pat[:m.start()] + alt + pat[m.end():])
    return out


def matches(pat):
    """Files (or, for 'x/', the folder) a path or glob names."""
    found = []
    for p in expand_braces(pat):
        p = p.rstrip("/")
        if any(c in p for c in "*?["):
            found += [f for f in FILES if fnmatch.fnmatchcase(f, p)]
        elif os.path.exists(p):
            found.append(p)
    return found


# ---------------------------------------------------------------- markdown

FENCE = re.compile(r"^\s*(```|~~~)")


def split_fences(text):
    """Yield (is_code, lineno, line)."""
    code = False
    for n, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            yield True, n, line
            code = not code
            continue
        yield code, n, line


def slug(heading):
    """GitHub's anchor for a heading."""
    h = heading.strip().lower()
    h = re.sub(r"<[^>]+>", "", h)
    h = h.replace("`", "")
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        seen = {}
        names = set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for code, _, line in split_fences(text):
            if code:
                continue
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                s = slug(m.group(1))
                k = seen.get(s, 0)
                seen[s] = k + 1
                names.add(s if k == 0 else f"{s}-{k}")
            for a in re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line):
                names.add(a)
        _anchor_cache[path] = names
    return _anchor_cache[path]


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def check_links(doc, text):
    linked = set()
    for code, n, line in split_fences(text):
        if code:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for target in LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # http:, https:, mailto:: not checked (no network)
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            if not os.path.exists(dest):
                fail(f"{doc}:{n}", f"link to '{target}': {dest} does not exist")
                continue
            linked.add(dest)
            if anchor:
                if not dest.endswith(".md") or os.path.isdir(dest):
                    fail(f"{doc}:{n}", f"link to '{target}': an anchor into a file that is not Markdown")
                elif anchor not in anchors(dest):
                    fail(f"{doc}:{n}", f"link to '{target}': {dest} has no heading '#{anchor}'")
                    continue
            ok()
    return linked


# First components of paths that are not this tree's: the kernel's source, build/, the system.
FOREIGN = {"net", "arch", "kernel", "build", "usr", "etc", "sys", "proc", "run", "var", "tmp", "dev"}
PATH_EXT = r"\.(?:md|c|h|py|sh|bash|bats|8|in|conf|timer|service|json|jsonl|csv|png|txt)\b"


def check_paths(doc, text):
    """Paths under today's top-level folders, and any dir/file.EXT (a folder that is gone too)."""
    tops = "|".join(re.escape(d) for d in TOP_DIRS if d not in FOREIGN)
    pat = re.compile(r"(?<![\w./@$-])((?:%s)/[\w./{},*?@+-]*|[A-Za-z_][\w.-]*/[\w./{},*-]*%s)" % (tops, PATH_EXT))
    for _, n, line in split_fences(text):
        line = re.sub(r"\]\([^)]*\)", "]", line)  # link targets: check_links' business
        for p in pat.findall(line):
            p = p.rstrip(".,:;")
            if p.split("/")[0] in FOREIGN or p.split("/")[0].endswith(".slice"):
                continue  # (a .slice is systemd's: a cgroup path, not the tree's)
            if p.endswith("/README") or "..." in p:
                continue
            if matches(p) or matches(os.path.join(os.path.dirname(doc), p)):
                ok()  # from the top of the tree, or (docs/eval/...) from the document's folder
            else:
                fail(f"{doc}:{n}", f"names '{p}', which is not in the tree")


# ---------------------------------------------------------------- the map

DETAILED = ("bpf", "include", "src")
CONTINUED = 16  # a map line indented this far continues the description above


def chk_rules(block):
    rows = re.findall(r'X\(\s*\w+\s*,\s*(\d+)\s*,\s*"([^"]+)"', open("include/cubic_rules.h").read())
    want = [f"{name} {value}" for value, name in rows]
    got = []
    for row in table_rows(block):
        m = re.match(r"`([^`]+)` \((\d+)", row[0])
        got.append(f"{m.group(1)} {m.group(2)}" if m else row[0])
    return None if got == want else diff_msg(want, got)


def check_codemap():
    text = open("README.md", encoding="utf-8").read()
    m = re.search(r"<!-- codemap:begin -->\n```\n(.*?)```\n<!-- codemap:end -->", text, re.S)
    if not m:
        fail("README.md", "no map of the code between <!-- codemap:begin --> and <!-- codemap:end -->")
        return
    entries = []  # (pattern, is_folder)
    stack = []  # (indent, folder prefix)
    for line in m.group(1).splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent >= CONTINUED:
            continue  # a description's second line
        name = line.split()[0]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        full = (stack[-1][1] if stack else "") + name
        entries.append((full, name.endswith("/")))
        if name.endswith("/"):
            stack.append((indent, full))
    named_files, folders = set(), []
    for pat, is_dir in entries:
        hits = matches(pat)
        if not hits:
            fail("README.md map", f"names '{pat}', which is not in the tree")
            continue
        if is_dir:
            d = pat.rstrip("/")
            if not os.path.isdir(d) or not any(f.startswith(d + "/") for f in FILES):
                fail("README.md map", f"names '{pat}', which is not a folder of the tree's files")
                continue
            folders.append(pat.rstrip("/"))
        else:
            hits = [h for h in hits if h in FILES]
            if not hits:
                fail("README.md map", f"names '{pat}', which is not a file of the tree (git-ignored?)")
                continue
            named_files.update(hits)
        ok()
    for d in TOP_DIRS:
        if d not in folders:
            fail("README.md map", f"the top-level folder '{d}/' is not named")
    for f in FILES:
        parts = f.split("/")
        if len(parts) == 1:
            if f.startswith(".") or f == "README.md" or f in named_files:
                continue
            fail("README.md map", f"the top-level file '{f}' is not named")
            continue
        if f in named_files:
            continue
        top = parts[0]
        if top in DETAILED or (top == "tools" and len(parts) == 2):
            cover = [d for d in folders if f.startswith(d + "/") and d != top]
        else:
            cover = [d for d in folders if f.startswith(d + "/")]
        if not cover:
            fail("README.md map", f"'{f}' is neither named nor under a named folder")
    ok()


# ---------------------------------------------------------------- the tools' output

def cubicctl(*args, check=True):
    return run(["./cubicctl", *args], check=check).stdout


def abi_version():
    m = re.search(r"#define\s+CUBIC_ABI_VERSION\s+(\d+)", open("include/cubic_abi.h").read())
    return m.group(1)


def release():
    return re.search(r"^VERSION\s*:?=\s*(\S+)", open("Makefile").read(), re.M).group(1)


def help_sections():
    h = cubicctl("help")
    cmds, presets = [], []
    sect = None
    for line in h.splitlines():
        if line.startswith("commands:"):
            sect = cmds
        elif line.startswith("presets"):
            sect = presets
        elif not line.startswith("  "):
            sect = None
        elif sect is not None:
            parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            sect.append((parts[0].split()[0], parts[1] if len(parts) > 1 else ""))
    return cmds, presets


def table_rows(block):
    rows = []
    for line in block.splitlines():
        if not line.startswith("|") or re.match(r"\|[-| :]+\|$", line):
            continue
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows[1:]  # no header


def uncode(s):
    return s.replace("`", "")


_install = {}


def install_run():
    """make install, then make uninstall, into a throw-away DESTDIR shaped like Debian 12."""
    if not _install:
        with tempfile.TemporaryDirectory() as d:
            for sub in ("usr/local/sbin", "usr/local/share/man", "usr/local/lib", "etc"):
                os.makedirs(os.path.join(d, sub))
            env = dict(os.environ, DESTDIR=d, PREFIX="/usr/local", SYSCONFDIR="/etc")
            _install["install"] = run(["tools/install.sh", "install"], env=env).stdout
            unit = os.path.join(d, "usr/local/lib/systemd/system/cubicctl@.service")
            _install["unit"] = open(unit).read()
            _install["uninstall"] = run(["tools/install.sh", "uninstall"], env=env).stdout
    return _install


def want_lines(block, prefix):
    return [l for l in block.splitlines() if l.startswith("  ") and l.split()[0] in prefix]


def chk_install(block):
    want = [l for l in install_run()["install"].splitlines() if l.strip()]
    got = want_lines(block, ("INSTALL", "KEEP"))
    return None if got == want else diff_msg(want, got)


def chk_uninstall(block):
    want = [l for l in install_run()["uninstall"].splitlines() if l.strip()]
    got = want_lines(block, ("REMOVE", "RMDIR"))
    return None if got == want else diff_msg(want, got)


def chk_unit(block):
    unit = set(install_run()["unit"].splitlines())
    missing = [l for l in block.splitlines() if l.strip() and l not in unit]
    return f"not in the installed cubicctl@.service: {missing}" if missing else None


def table_check(block, want):
    """A table whose rows must be want's; on a difference, the rows to paste in."""
    got = table_rows(block)
    if got == want:
        return None
    rows = "\n".join("| " + " | ".join(r) + " |" for r in want)
    return diff_msg([" | ".join(r) for r in want], [" | ".join(r) for r in got]) + \
        f"\n  today's rows:\n{rows}"


def chk_help(block):
    cmds, _ = help_sections()
    return table_check(block, [[f"`{c}`", s] for c, s in cmds])


def chk_presets(block):
    _, presets = help_sections()
    return table_check(block, [[f"`{c}`", s] for c, s in presets])


def chk_reasons(block):
    return table_check(block, [[f"`{r['name']}`", r["help"]] for r in REASONS])


def prom_families():
    # with nothing (or not this NAME) loaded it still prints every family's HELP and TYPE
    out = cubicctl("status", "--prometheus", "--name", "docs_check_none", check=False)
    fams = {l.split()[2]: l.split()[3] for l in out.splitlines() if l.startswith("# TYPE ")}
    if not fams:
        skipped.add("the Prometheus families ('cubicctl status' needs root)")
    return fams


def chk_prom_sample(block):
    fams = prom_families()
    if not fams:
        return None  # cubicctl could not run status here (not root): the ABI check still ran
    bad = [l for l in block.splitlines()
           if re.match(r"bpf_cubic_\w+", l) and re.match(r"(bpf_cubic_\w+)", l).group(1) not in fams]
    return f"families cubicctl does not print: {bad}" if bad else None


def chk_prom_families(block):
    fams = prom_families()
    if not fams:
        return None
    got, reasons, types = [], None, []
    for row in table_rows(block):
        for name in re.sub(r"\{[^}]*\}", "", uncode(row[0])).split(","):
            name = name.strip()
            got.append(name)
            if name in fams and fams[name] != row[1]:
                types.append(f"{name} is a {fams[name]}, the table says {row[1]}")
            if name == "bpf_cubic_exits_total":
                reasons = [r.strip() for r in row[2].split("by reason:")[1].split(",")]
    msgs = types
    if sorted(got) != sorted(fams):
        msgs.append(diff_msg(sorted(fams), sorted(got)))
    if reasons != [r["name"] for r in REASONS]:
        msgs.append(f"bpf_cubic_exits_total's reasons are {[r['name'] for r in REASONS]}, the table says {reasons}")
    return "; ".join(msgs) or None


def chk_make_load(block):
    script = open("tools/make-load.sh").read()
    trailer = script[script.index("<<'TXT'\n") + 8:script.index("\nTXT")].strip("\n").splitlines()
    lines = block.splitlines()
    missing = [l for l in trailer if l and l not in lines]
    return f"tools/make-load.sh prints lines the example lacks: {missing}" if missing else None


CHECKS = {
    "make install": chk_install,                 # tools/install.sh install's listing
    "make uninstall": chk_uninstall,             # tools/install.sh uninstall's, after it
    "cubicctl@.service": chk_unit,               # lines of the unit make install writes
    "cubicctl help": chk_help,                   # the command table of 'cubicctl help'
    "presets": chk_presets,                      # the presets of 'cubicctl help'
    "reasons": chk_reasons,                      # 'cubicctl help --reasons-json'
    "status --prometheus": chk_prom_sample,      # samples of families cubicctl prints
    "prometheus families": chk_prom_families,    # every family, and exits_total's reasons
    "make load": chk_make_load,                  # tools/make-load.sh's closing text
    "rules": chk_rules,                          # the rows of include/cubic_rules.h
}


def diff_msg(want, got):
    w, g = set(want), set(got)
    parts = []
    if w - g:
        parts.append(f"the tools say, the docs lack: {sorted(w - g)}")
    if g - w:
        parts.append(f"the docs say, the tools do not: {sorted(g - w)}")
    if not parts:
        parts.append(f"in another order: the tools say {want}")
    return "; ".join(parts)


def marked_blocks(text):
    """(what, lineno, block) for each <!-- check: WHAT --> and the block or table after it."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"<!-- check: (.+?) -->\s*$", line)
        if not m:
            continue
        j = i + 1
        if j < len(lines) and FENCE.match(lines[j]):
            k = j + 1
            while k < len(lines) and not FENCE.match(lines[k]):
                k += 1
            yield m.group(1), i + 1, "\n".join(lines[j + 1:k])
        else:
            k = j
            while k < len(lines) and lines[k].startswith("|"):
                k += 1
            yield m.group(1), i + 1, "\n".join(lines[j:k])


def check_examples(doc, text):
    abi, ver = abi_version(), release()
    exits_reasons = [r["name"] for r in REASONS if r.get("status_line") == "exits"]
    for code, n, line in split_fences(text):
        if not code:
            continue
        for a in re.findall(r"\babi=\"(\d+)\"", line) + re.findall(r"\bABI (\d+)\b", line):
            if a != abi:
                fail(f"{doc}:{n}", f"an example shows ABI {a}; include/cubic_abi.h says {abi}")
        for v in re.findall(r"\bversion=\"([^\"]+)\"", line) + re.findall(r"^cubicctl (\d+\.\d+\.\d+) \(", line):
            if v != ver:
                fail(f"{doc}:{n}", f"an example shows version {v}; the Makefile says {ver}")
        m = re.match(r"\s+abi\s+(\d+)\s*$", line)
        if m and m.group(1) != abi:
            fail(f"{doc}:{n}", f"a status example shows abi {m.group(1)}; include/cubic_abi.h says {abi}")
        m = re.match(r"\s+tunables\s+(\w+=.*)$", line)
        if m:
            keys = re.findall(r"(\w+)=", m.group(1))
            if keys != TUNABLES[:len(keys)]:
                fail(f"{doc}:{n}", f"a status 'tunables' line names {keys}; cubicctl prints {TUNABLES[:len(keys)]}")
        m = re.match(r"\s+exits\s+(\w+ \d+.*)$", line)
        if m:
            got = re.findall(r"(?:^|, )(\w+) \d+", m.group(1))
            if got != exits_reasons:
                fail(f"{doc}:{n}", f"a status 'exits' line names {got}; cubicctl prints {exits_reasons}")
    for what, n, block in marked_blocks(text):
        fn = CHECKS.get(what)
        if not fn:
            fail(f"{doc}:{n}", f"<!-- check: {what} -->: no such check (known: {', '.join(CHECKS)})")
            continue
        try:
            msg = fn(block)
        except (RuntimeError, OSError, ValueError) as e:
            msg = f"could not run the check: {e}"
        if msg:
            fail(f"{doc}:{n}", f"<!-- check: {what} -->: {msg}")
        else:
            ok()


def help_options(cmd):
    """(options of the usage lines, every option the help names) of 'cubicctl CMD --help'."""
    p = run(["./cubicctl", cmd, "--help"], check=False)
    out = p.stdout + p.stderr  # today's help goes to stderr; either will do
    usage, in_usage = [], False
    for line in out.splitlines():
        if line.startswith("usage:"):
            in_usage = True
        elif not line.startswith(" "):
            in_usage = False
        if in_usage:
            usage.append(line)
    opt = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
    return set(opt.findall("\n".join(usage))), set(opt.findall(out))


def check_commands_doc():
    """docs/COMMANDS.md's section of each command names every option of its usage, and
    every option it names is one that some command's help names."""
    doc = "docs/COMMANDS.md"
    if not os.path.exists(doc):
        return
    text = open(doc, encoding="utf-8").read()
    sections = {}
    for m in re.finditer(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", text, re.M | re.S):
        for word in re.findall(r"[a-z]+", m.group(1)):
            sections[word] = m.group(2)
    cmds, _ = help_sections()
    known = {"--json", "--verbose", "--version", "--help", "--net"}  # --net: nsenter's
    for cmd, _ in cmds:
        if cmd == "help":
            continue
        usage, named = help_options(cmd)
        known |= named
        sect = sections.get(cmd)
        if sect is None:
            fail(doc, f"no section for '{cmd}' (a heading '## {cmd}')")
            continue
        missing = sorted(o for o in usage if not re.search(re.escape(o) + r"(?![\w-])", sect))
        if missing:
            fail(doc, f"the section of '{cmd}' does not mention {missing} ('cubicctl {cmd} --help')")
        else:
            ok()
    for n, line in enumerate(text.split("\n"), 1):
        for o in re.findall(r"(?<![\w-])--[a-z][a-z-]*", line):
            if o not in known:
                fail(f"{doc}:{n}", f"names {o}, which no command's --help names")


# ---------------------------------------------------------------- main

if not os.access("cubicctl", os.X_OK):
    print("docs_check: ./cubicctl is missing: run 'make' first", file=sys.stderr)
    sys.exit(1)
REASONS = json.loads(cubicctl("help", "--reasons-json"))["reasons"]
TUNABLES = re.findall(r"^\| `(\w+)` \|", cubicctl("help", "--markdown"), re.M)

linked = set()
for doc in doc_files():
    text = open(doc, encoding="utf-8").read()
    found = check_links(doc, text)
    if doc == "README.md":
        linked = found
    check_paths(doc, text)
    check_examples(doc, text)
for doc in doc_files()[1:]:
    if doc not in linked:
        fail("README.md", f"does not link to {doc}")
check_codemap()
check_commands_doc()

for f in failures:
    print(f"docs_check: {f}", file=sys.stderr)
if skipped:
    print(f"docs_check: not checked here: {'; '.join(sorted(skipped))}")
print(f"docs_check: {passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
