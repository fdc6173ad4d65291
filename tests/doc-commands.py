#!/usr/bin/python3
"""doc-commands.py TOP OUTDIR — every command line of the documentation,
as tests/doc-commands.sh runs it (issue 28: the documentation is a test).

Reads README.md's ```sh blocks, the EXAMPLES of every man page and every
example block of man/xcap-tutorial.7; writes OUTDIR/NN.sh, one per block,
each line a call `doc_line DOC:LINE KIND 'COMMAND'` for the runner's
prelude, and OUTDIR/list (NN DOC:LINE first-command) in the documents'
order.  KIND says how a user runs the line and so how it is judged:

  plain    run; status 0, some output (on the terminal or in a file it
           made), no error message
  bg       a job put in the background (COMMAND &), judged by what the
           lines after it find
  quiet    a shell step that prints nothing by design (kill, sleep, cd,
           ip, a wait): status 0
  window   a program that stays up until the user closes it (netplot's
           window, xplot, an xterm): it must still be up after a while
  app      xcap-run around an application the user closes: the tables it
           prints when the application ends (here: is stopped)
  skip:WHY not run here, and why (said in the test's output, never silently)

Run-dependent values are variables the runner sets from its own run:
the display (:1 in the documents), its port (6001), the VNC port (5901),
xterm's connection and the AllocColor loop's span in the tutorial, the
namespaces of xcap-link's example.

Belongs to: the tests (tests/).
"""
import os
import re
import sys

top, outdir = sys.argv[1], sys.argv[2]

# Lines not run here, and why: each is said in the test's output.
SKIPS = [
    (r'^\./bootstrap demo', 'this test runs tests/demo.sh, which is what it runs after building'),
    (r'^\./bootstrap check', 'the whole test suite, which this test is part of'),
    (r'^/usr/share/xcap/demo', 'the installed package\'s demo: tests/package.sh runs it'),
    (r'^(dpkg-buildpackage|sudo apt install|sudo adduser|sudo addgroup|sudo chgrp|sudo setcap)',
     'installs on this machine: tests/package.sh builds, installs and runs the packages'),
    (r'^ssh -X far\.example\.org', 'a remote host of the reader\'s; the README\'s capture block runs the same capture locally'),
    (r'^echo \$DISPLAY', 'inside the reader\'s ssh session (above)'),
    (r'^sudo xcap -i lo -w app\.xcap tcp port 6010', 'inside the reader\'s ssh session (above); the README\'s capture block runs it locally'),
    (r'^your-app; kill', 'inside the reader\'s ssh session (above)'),
    (r'^xcap-run --wayland -w foot\.xcap', 'foot wants a seat, which no headless compositor here gives it (it exits 230): '
     'tests/run-wayland.sh runs xcap-run --wayland on six real clients'),
    (r'^xcapanalyse --dump foot\.xcap', 'reads the trace of the line above, not run here'),
    (r'^(mkdir -p -m 0700 comp app|XDG_RUNTIME_DIR=\$PWD/(comp|app) |socat (TCP-LISTEN:7400|UNIX-LISTEN:\$PWD/app\.sock)|'
     r'xcap -i lo -w wl\.xcap|kill %2$)',
     'the Wayland walk\'s chain (weston, waypipe at both ends, socat, the capture): tests/wayland-waypipe.sh '
     'runs the same chain; the views below read a stand-in wl.xcap made by tests/wayland-input.sh'),
]

APPS = r'(xterm|gtk3-demo|qterminal)'


def kind_of(cmd):
    for pat, why in SKIPS:
        if re.search(pat, cmd):
            return 'skip:' + why
    if re.search(r'&\s*$', cmd):
        return 'bg'
    if re.match(r'(kill|sleep|cd|export|mkdir|ip |while )', cmd) or re.search(r'\bxprop .* -set ', cmd):
        return 'quiet'
    if re.match(r'xcap-run .*-- ' + APPS + r'\b', cmd):
        return 'app'
    if re.match(r'(netplot|xplot\.org)\b', cmd) and ('--export' not in cmd or 'xplot.org' in cmd) \
            and '--cdf' not in cmd:
        return 'window'
    if re.match(r'DISPLAY=\S+ xterm\s*$', cmd) or re.match(r'xcap-link\b', cmd):
        return 'window'
    return 'plain'


def roff_text(line):
    line = line.replace('\\-', '-').replace('\\e', '\\').replace('\\&', '').replace('\\(mu', 'x')
    return re.sub(r'\\f[BIRP]', '', line)


def strip_comment(cmd):
    # a comment after two spaces (the documents' style), outside quotes
    q = None
    for i, ch in enumerate(cmd):
        if q:
            if ch == q:
                q = None
        elif ch in '\'"':
            q = ch
        elif ch == '#' and i >= 1 and cmd[i - 1] == ' ':
            return cmd[:i].rstrip()
    return cmd.rstrip()


def blocks_of(doc, lines):
    """(first line number, [(line number, command)]) of each example block."""
    out = []
    if doc == 'README.md':
        cur = None
        for n, l in enumerate(lines, 1):
            if l.startswith('```sh'):
                cur = []
            elif l.startswith('```') and cur is not None:
                out.append(cur)
                cur = None
            elif cur is not None:
                cur.append((n, l))
        return out
    in_examples = doc.endswith('xcap-tutorial.7')
    cur = None
    for n, l in enumerate(lines, 1):
        if l.startswith('.SH '):
            in_examples = doc.endswith('xcap-tutorial.7') or l.startswith('.SH EXAMPLES')
            continue
        if not in_examples:
            continue
        if l.startswith('.EX') or l.startswith('.nf'):
            cur = []
        elif (l.startswith('.EE') or l.startswith('.fi')) and cur is not None:
            out.append(cur)
            cur = None
        elif cur is not None and not l.startswith('.'):
            cur.append((n, roff_text(l)))
    return out


def commands(block):
    """The command lines of a block: continuations joined; in a block with
    "$ " prompts only the prompted lines (the rest is output)."""
    prompted = any(t.lstrip().startswith('$ ') for _, t in block)
    cmds, pending, start = [], '', 0
    for n, t in block:
        s = t.strip()
        if prompted:
            if not s.startswith('$ ') and not pending:
                continue
            s = s[2:] if s.startswith('$ ') else s
        if not s and not pending:
            continue
        if not pending:
            start = n
        if s.endswith('\\'):
            pending += s[:-1] + ' '
            continue
        cmds.append((start, strip_comment(pending + s)))
        pending = ''
    return [(n, c) for n, c in cmds if c]


def substitute(doc, cmd, own_x):
    d, port = ('${DOC_D2}', '${DOC_PORT2}') if own_x else ('${DOC_D}', '${DOC_PORT}')
    cmd = re.sub(r'(?<=[\s=0-9.]):1(?=\s|$)', ':' + d, cmd)
    cmd = cmd.replace('6001', port).replace('5901', '${DOC_VNC_PORT}')
    cmd = cmd.replace('$PWD/build/', '$top_builddir/')
    cmd = cmd.replace('your-client', 'xdpyinfo')	# the stand-in client
    if doc.endswith('xcap-tutorial.7'):
        cmd = re.sub(r'--conn 3\b', '--conn ${XTERM_CONN}', cmd)
        cmd = re.sub(r'--range [0-9.]+:[0-9.]+', '--range ${ALLOC_RANGE}', cmd)
        cmd = re.sub(r'^cd demo-out$', 'cd .', cmd)
    if doc.endswith('xcap-link.1'):
        cmd = re.sub(r'\b(client|server|home|isp)\b(?!\.)', r'${NS_\1}', cmd)
        cmd = cmd.replace('/tmp/link.ready', '${workdir}/link.ready')
    return cmd


docs = ['README.md'] + sorted('man/' + f for f in os.listdir(os.path.join(top, 'man'))
                              if re.search(r'\.[157]$', f))
os.makedirs(outdir, exist_ok=True)
listing = []
k = 0
for doc in docs:
    with open(os.path.join(top, doc), encoding='utf-8') as f:
        lines = f.read().split('\n')
    for block in blocks_of(doc, lines):
        cmds = commands(block)
        if not cmds:
            continue
        k += 1
        own_x = any(re.match(r'Xvfb :1\b', c) for _, c in cmds)
        name = os.path.basename(doc)
        with open(os.path.join(outdir, '%02d.sh' % k), 'w') as f:
            f.write('# %s, the block at line %d\n' % (doc, cmds[0][0]))
            for n, c in cmds:
                run = substitute(doc, c, own_x)
                f.write("doc_line %s:%d '%s' '%s'\n" % (name, n, kind_of(c).replace("'", "'\\''"),
                                                       run.replace("'", "'\\''")))
        listing.append('%02d %s %s:%d %s' % (k, name, doc, cmds[0][0], cmds[0][1]))
with open(os.path.join(outdir, 'list'), 'w') as f:
    f.write('\n'.join(listing) + '\n')
