#!/usr/bin/env python3
"""Independent tick count for TestTicksCorpora (no taskproof code involved).

Usage: tickcount.py REPO [--first-parent]

Walks the commits of REPO's HEAD (with --first-parent: its first-parent chain;
without it: every commit), compares each commit with its first parent using the
real git (`git diff -M --name-status`, so renames and moves of tasks files, e.g.
OpenSpec's changes/<id>/ -> changes/archive/<date>-<id>/, pair the two paths), and
for every changed unit tasks file matches checkbox lines between the two sides:
by written task ID (spec-kit T001; OpenSpec/Kiro 1.2, trailing "." dropped), or,
for lines without an ID, by title (text after the box and [..] markers, trimmed;
the n-th repeat of a title is its own key). Lines in ``` / ~~~ fences and HTML
comments are not tasks. A file repeating a written ID pairs repeats by order.
A ticked line without a match in the parent's version of the file (a task added
already ticked, or an ID-less task reworded as it is ticked) is a tick too; the
ticked lines of a tasks file the commit adds (status A, not a rename) are
counted apart as born_ticked.

Prints JSON: {"ticks": N, "commits": N, "unticks": N, "born_ticked": N,
"per_commit": {sha: [ticks, unticks, born_ticked]}}.
"""
import json, re, subprocess, sys

BOX = re.compile(r'^[ \t]*(?:[-*+]|[0-9]{1,9}[.)])[ \t]+\[([ xX-])\](?:[ \t]+(.*))?$')
UNIT = [
    (re.compile(r'^specs/[^/]+/tasks\.md$'), 'speckit'),
    (re.compile(r'^\.specify/specs/[^/]+/tasks\.md$'), 'speckit'),
    (re.compile(r'^openspec/changes/archive/[^/]+/tasks\.md$'), 'openspec'),
    (re.compile(r'^openspec/changes/(?!archive/)[^/]+/tasks\.md$'), 'openspec'),
    (re.compile(r'^\.kiro/specs/[^/]+/tasks\.md$'), 'kiro'),
]
SPECKIT_ID = re.compile(r'^T[0-9]+[a-z]?$')
NUM_ID = re.compile(r'^([0-9]+(?:\.[0-9]+)*[a-z]?)\.?$')
MARKER = re.compile(r'^\[[^\[\]\s]+\](?:[ \t]+|$)')


def git(repo, *args):
    return subprocess.run(['git', '-C', repo] + list(args), capture_output=True, check=True).stdout


def fmt_of(path):
    for rx, f in UNIT:
        if rx.match(path):
            return f
    return None


def tasks(data, fmt):
    """Returns {key: box} for the checkbox lines of a tasks file."""
    text = data.decode('utf-8', 'replace')
    if text.startswith('\ufeff'):
        text = text[1:]
    out, seen = {}, {}
    fence, comment = None, False
    for line in text.split('\n'):
        line = line[:-1] if line.endswith('\r') else line
        s = line.lstrip(' \t')
        if comment:
            if '-->' in line:
                comment = '<!--' in line[line.rindex('-->'):]
            continue
        if fence:
            if s.startswith(fence) and s.rstrip(' \t').strip(fence[0]) == '':
                fence = None
            continue
        m = re.match(r'^(`{3,}|~{3,})', s)
        if m and not (m.group(1)[0] == '`' and '`' in s[len(m.group(1)):]):
            fence = m.group(1)
            continue
        i = line.rfind('<!--')
        if i >= 0 and '-->' not in line[i + 4:]:
            comment = True
        if s.startswith('<!--'):
            continue
        m = BOX.match(line)
        if not m:
            continue
        box, rest = m.group(1), (m.group(2) or '').lstrip(' \t')
        first = re.split(r'[ \t]', rest, 1)[0]
        key = None
        if fmt == 'speckit' and SPECKIT_ID.match(first):
            key = 'id:' + first
        elif fmt != 'speckit' and NUM_ID.match(first):
            key = 'id:' + NUM_ID.match(first).group(1)
        else:
            r = rest
            while True:
                mm = MARKER.match(r)
                if not mm:
                    break
                r = r[mm.end():]
            key = 'title:' + r.strip()
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key += '#%d' % seen[key]
        out[key] = box
    return out


def main():
    repo = sys.argv[1]
    fp = '--first-parent' in sys.argv[2:]
    args = ['rev-list', '--reverse', 'HEAD'] + (['--first-parent'] if fp else [])
    total_t = total_u = total_n = 0
    per = {}
    for c in git(repo, *args).decode().split():
        parents = git(repo, 'rev-list', '--parents', '-n', '1', c).decode().split()[1:]
        if not parents:
            continue
        p = parents[0]
        diff = git(repo, 'diff', '-M', '--name-status', '-z', p, c).decode().split('\0')
        i, pairs, added = 0, [], []
        while i < len(diff) and diff[i]:
            st = diff[i]
            if st[0] in 'RC':
                pairs.append((diff[i + 1], diff[i + 2]))
                i += 3
            else:
                if st[0] == 'M':
                    pairs.append((diff[i + 1], diff[i + 1]))
                elif st[0] == 'A':
                    added.append(diff[i + 1])
                i += 2
        t = u = n = 0
        for new in added:
            f = fmt_of(new)
            if f:
                b = tasks(git(repo, 'cat-file', 'blob', '%s:%s' % (c, new)), f)
                n += sum(1 for nb in b.values() if nb in 'xX')
        for old, new in pairs:
            f = fmt_of(new)
            if not f or fmt_of(old) != f:
                continue
            a = tasks(git(repo, 'cat-file', 'blob', '%s:%s' % (p, old)), f)
            b = tasks(git(repo, 'cat-file', 'blob', '%s:%s' % (c, new)), f)
            for k, nb in b.items():
                ob = a.get(k)
                if ob is None:
                    if nb in 'xX':
                        t += 1
                    continue
                if ob in ' -' and nb in 'xX':
                    t += 1
                elif ob in 'xX' and nb in ' -':
                    u += 1
        if t or u or n:
            per[c] = [t, u, n]
        total_t += t
        total_u += u
        total_n += n
    print(json.dumps({'ticks': total_t, 'commits': sum(1 for v in per.values() if v[0]),
                      'unticks': total_u, 'born_ticked': total_n, 'per_commit': per}, indent=1))


if __name__ == '__main__':
    main()
