#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Keeps docs/man/cubicctl.8 equal to what cubicctl says about itself.

The man page is written by hand, but its lists that would drift (the commands'
synopses, tunables, rules, presets, exit codes, trace's exit reasons) sit
between marker comments and are generated from cubicctl's own output, which
comes from the same tables as its parser ('help', 'help --markdown',
'help --reasons-json', 'help --options-json'):

    .\\" BEGIN GENERATED tunables (tools/doc/manpage.py update)
    ...
    .\\" END GENERATED tunables

  manpage.py update [--cubicctl BIN] FILE   rewrite the generated parts of FILE
  manpage.py check  [--cubicctl BIN] FILE   exit 1 if they differ, or if FILE
        lacks a command of 'cubicctl help' (its own .SS "cubicctl CMD"), an
        option of the command's option table (in that subsection), a global
        option (in OPTIONS) or a datapath (in load's subsection)
  manpage.py fragments [--cubicctl BIN]     print the generated parts

Needs no root: every command it runs is a help text.
"""
import argparse
import json
import re
import subprocess
import sys

MARK_BEGIN = '.\\" BEGIN GENERATED {} (tools/doc/manpage.py update)'
MARK_END = '.\\" END GENERATED {}'


def run(binary, *args):
    """stdout and stderr of cubicctl ARGS (COMMAND --help prints on stderr)."""
    p = subprocess.run([binary, *args], capture_output=True, text=True, check=False)
    if p.returncode != 0:
        sys.exit(f"manpage.py: '{binary} {' '.join(args)}' exited {p.returncode}: "
                 f"{p.stderr.strip()}")
    return p.stdout + p.stderr


def section(text, head):
    """The lines after the line starting with head, up to the next blank line."""
    out, inside = [], False
    for line in text.splitlines():
        if inside:
            if not line.strip():
                break
            out.append(line)
        elif line.startswith(head):
            inside = True
    return out


class Cubicctl:
    """What cubicctl says about itself."""

    def __init__(self, binary):
        self.help = run(binary, 'help')
        usage = []
        for line in self.help.splitlines():
            if not line.strip():
                break
            usage.append(line)
        self.global_options = sorted(set(re.findall(r'(?<![\w-])(--?[a-zA-Z][a-z-]*)',
                                                    ' '.join(usage))))
        self.commands = [l.split()[0] for l in section(self.help, 'commands:')]
        self.presets = []
        for line in section(self.help, 'presets'):
            name, text = line.strip().split(None, 1)
            self.presets.append((name, text))
        m = re.search(r'^exit codes: (.*)$', self.help, re.M)
        if not m:
            sys.exit("manpage.py: no 'exit codes:' line in 'cubicctl help'")
        self.exit_codes = [tuple(c.strip().split(None, 1)) for c in m.group(1).split(',')]
        self.tunables = []
        for line in run(binary, 'help', '--markdown').splitlines():
            m = re.match(r'^\| `([a-z0-9_]+)` \| (\d+) \| (\d+)\.\.(\d+) \| ([^|]*) \| (.*) \|$',
                         line)
            if m:
                self.tunables.append(m.groups())
        vocab = json.loads(run(binary, 'help', '--reasons-json'))
        self.reasons = [(r['name'], r['help']) for r in vocab['reasons']]
        self.datapaths = [d['name'] for d in vocab['datapaths']]
        opts = json.loads(run(binary, 'help', '--options-json'))
        self.global_options += [f"--{o['name']}" for o in opts['global']]
        self.global_options = sorted(set(self.global_options))
        self.command_table = opts['commands']
        self.options = {c['name']: [f"--{o['name']}" for o in c['options']]
                        for c in opts['commands']}
        self.rules = vocab.get('rules', [])


def esc(text):
    """Plain text as roff: backslashes escaped, no line read as a request."""
    text = text.replace('\\', '\\e')
    return '\\&' + text if text[:1] in ('.', "'") else text


def roff_opt(o):
    """One option of a synopsis: .OP's arguments, or a raw line for a group."""
    name = '\\-\\-' + o['name'].replace('-', '\\-')
    return name if o['value'] is None else f"{name} {esc(o['value'])}"


def synopsis(c):
    """The .SY block of each command, from its option table."""
    out = []
    for cmd in c.command_table:
        out.append(f'.SY "cubicctl {cmd["name"]}"')
        opts = cmd['options']
        k = 0
        while k < len(opts):
            o = opts[k]
            group = [o]
            while o['group'] and k + len(group) < len(opts) and \
                    opts[k + len(group)]['group'] == o['group']:
                group.append(opts[k + len(group)])
            if len(group) == 1:
                out.append(f'.OP {roff_opt(o)}')
                if o.get('repeat'):
                    out.append('\\&...')
            else:
                parts = []
                for g in group:
                    b = '\\fB\\-\\-' + g['name'].replace('-', '\\-') + '\\fR'
                    parts.append(b if g['value'] is None else f"{b} \\fI{esc(g['value'])}\\fR")
                out.append('[' + ' | '.join(parts) + ']')
            k += len(group)
        if cmd['args']:
            out.append(f".I \"{esc(cmd['args'])}\"")
        out.append('.YS')
    return out


def fragments(c):
    """The generated parts, by name."""
    tun = []
    for name, default, lo, hi, unit, text in c.tunables:
        tun += ['.TP', f'\\fB{name}\\fR (default {default}, range {lo}..{hi}, {esc(unit.strip())})',
                esc(text)]
    presets = []
    for name, text in c.presets:
        presets += ['.TP', f'.B {name}', esc(text)]
    rules = []
    for r in c.rules:
        also = f"; also {r['aliases']}" if r['aliases'] else ''
        rules += ['.TP', f".BR {r['name']} \" (hystart={r['value']}{esc(also)})\"", esc(r['help'])]
    codes = []
    for code, text in c.exit_codes:
        codes += ['.TP', f'.B {code}', esc(text)]
    reasons = []
    for name, text in c.reasons:
        reasons += ['.TP', f'.B {name}', esc(text)]
    return {'synopsis': synopsis(c), 'tunables': tun, 'rules': rules, 'presets': presets,
            'exit-codes': codes, 'reasons': reasons}


def replace_fragments(page, frags):
    """page with each generated part rewritten; KeyError names a missing marker pair."""
    lines = page.splitlines()
    for name, body in frags.items():
        try:
            b = lines.index(MARK_BEGIN.format(name))
            e = lines.index(MARK_END.format(name), b)
        except ValueError:
            raise KeyError(name) from None
        lines[b + 1:e] = body
    return '\n'.join(lines) + '\n'


def plain(roff):
    """The words of roff source, for searching: no comments, escapes or macro names."""
    out = []
    for line in roff.splitlines():
        if line.startswith('.\\"'):
            continue
        line = re.sub(r'^\.[A-Za-z]+\s*', '', line)
        for seq, text in (('\\-', '-'), ('\\&', ''), ('\\e', '\\'), ('\\(aq', "'")):
            line = line.replace(seq, text)
        line = re.sub(r'\\f(\(..|\[[^]]*\]|.)', '', line)
        line = line.replace('\\ ', ' ').replace('\\~', ' ').replace('"', '')
        out.append(line)
    return '\n'.join(out)


def split(roff, macro):
    """{heading: body} for each .SH (or .SS) of roff; headings in plain words."""
    parts, head, body = {}, None, []
    for line in roff.splitlines():
        if line.startswith(macro + ' '):
            if head is not None:
                parts[head] = '\n'.join(body)
            head, body = plain(line).strip(), []
        elif head is not None:
            if macro == '.SS' and line.startswith('.SH '):
                break
            body.append(line)
    if head is not None:
        parts[head] = '\n'.join(body)
    return parts


def has_word(text, word):
    return re.search(r'(?<![\w-])' + re.escape(word) + r'(?![\w-])', text) is not None


def rendered(page):
    """The page as man shows it (groff -man -Tutf8), or None without groff."""
    try:
        p = subprocess.run(['groff', '-man', '-Tutf8', '-P-cbou'], input=page,
                           capture_output=True, text=True, check=False)
    except FileNotFoundError:
        return None
    return p.stdout


def garbled(text):
    """Lines where a macro's quoting shows through: a '"' beside a typographic quote."""
    return [line.strip() for line in text.splitlines()
            if re.search(r'[\u201c\u201d]"|"[\u201c\u201d]|\u201c",', line)]


def check(page, c):
    problems = []
    text = rendered(page)
    for line in garbled(text or ''):
        problems.append(f"renders garbled (a macro's quote shows): '{line}'")
    try:
        if replace_fragments(page, fragments(c)) != page:
            problems.append('a generated part differs from cubicctl; run '
                            "'tools/doc/manpage.py update docs/man/cubicctl.8' (make man)")
    except KeyError as e:
        problems.append(f"no marker pair for the generated part '{e.args[0]}'")
    sections = split(page, '.SH')
    for s in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'COMMANDS', 'TUNABLES', 'PRESETS',
              'EXIT STATUS', 'FILES', 'EXAMPLES', 'SEE ALSO'):
        if s not in sections:
            problems.append(f'no section {s}')
    options = plain(sections.get('OPTIONS', ''))
    synopsis = plain(sections.get('SYNOPSIS', ''))
    for o in c.global_options:
        if not has_word(options, o):
            problems.append(f"global option {o} ('cubicctl help') is not in OPTIONS")
        if not has_word(synopsis, o):
            problems.append(f"global option {o} ('cubicctl help') is not in SYNOPSIS")
    subs = {}
    for head, body in split(sections.get('COMMANDS', ''), '.SS').items():
        m = re.match(r'^cubicctl (\S+)', head)
        if m:
            subs[m.group(1)] = plain(body)
    for cmd in c.commands:
        if cmd not in subs:
            problems.append(f'command {cmd} has no .SS "cubicctl {cmd}" in COMMANDS')
            continue
        if not has_word(synopsis, cmd):
            problems.append(f'command {cmd} is not in SYNOPSIS')
        for o in c.options.get(cmd, []):
            if not has_word(subs[cmd], o):
                problems.append(f"option {o} of 'cubicctl {cmd} --help' is not in its subsection")
    for d in c.datapaths:
        if not has_word(subs.get('load', ''), d):
            problems.append(f"datapath {d} is not in the load subsection")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cubicctl', default='./cubicctl', help='the binary to ask (./cubicctl)')
    ap.add_argument('action', choices=('update', 'check', 'fragments'))
    ap.add_argument('file', nargs='?', default='docs/man/cubicctl.8')
    a = ap.parse_args()
    c = Cubicctl(a.cubicctl)
    frags = fragments(c)
    if a.action == 'fragments':
        for name, body in frags.items():
            print('\n'.join([MARK_BEGIN.format(name), *body, MARK_END.format(name)]))
        return 0
    with open(a.file, encoding='utf-8') as f:
        page = f.read()
    if a.action == 'update':
        try:
            new = replace_fragments(page, frags)
        except KeyError as e:
            sys.exit(f"manpage.py: {a.file}: no marker pair for the generated part '{e.args[0]}'")
        if new != page:
            with open(a.file, 'w', encoding='utf-8') as f:
                f.write(new)
            print(f'manpage.py: {a.file}: generated parts rewritten')
        return 0
    problems = check(page, c)
    for p in problems:
        print(f'{a.file}: {p}', file=sys.stderr)
    if problems:
        return 1
    n_opts = sum(len(v) for v in c.options.values()) + len(c.global_options)
    print(f'{a.file}: {len(c.commands)} commands, {n_opts} options, {len(c.tunables)} tunables, '
          f'{len(c.presets)} presets, {len(c.exit_codes)} exit codes, {len(c.reasons)} exit '
          'reasons: as cubicctl says')
    return 0


if __name__ == '__main__':
    sys.exit(main())
