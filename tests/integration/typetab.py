#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""typetab.py COMPLETION LINE...: what an interactive bash makes of each LINE.

Types each LINE into one interactive bash (on a pty) that has sourced the
completion script COMPLETION; '\\t' in a LINE is a TAB key. Prints, one a
line, the command line bash ended up with: readline's own completion at work,
with bash's word splitting at '=' and its choice of what text a reply
replaces, which a completion function called by hand does not show.
"""
import os
import pty
import select
import sys
import tempfile
import time


def main():
    comp, lines = sys.argv[1], sys.argv[2:]
    with tempfile.NamedTemporaryFile('r', prefix='typetab.', delete=False) as f:
        result = f.name
    # each line: typed, then commented out (Ctrl-A, '#') and run, so it goes
    # into the history as it stands, from where fc writes it to the result
    keys = f"PS1=; HISTFILE=; source '{comp}'\n"
    for line in lines:
        keys += line.replace('\\t', '\t') + "\x01#\n" + f"fc -ln -1 >>'{result}'\n"
    keys += "exit\n"
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp('bash', ['bash', '--norc', '--noprofile', '-i'])
    os.write(fd, keys.encode())
    end = time.time() + 30
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        try:
            if r and not os.read(fd, 4096):
                break
        except OSError:  # the shell exited
            break
    else:
        os.kill(pid, 9)
        sys.exit('typetab.py: bash did not exit in 30 s')
    os.waitpid(pid, 0)
    with open(result) as f:
        for line in f:
            print(line.strip().lstrip('#').strip())
    os.unlink(result)
    return 0


if __name__ == '__main__':
    sys.exit(main())
