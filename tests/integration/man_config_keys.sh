#!/usr/bin/env bash
# configs/README.md and man/metis.ini.5 document the same keys in every section, with the same defaults and [bits] names.
. "$(dirname "$0")/../lib/common.sh"
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }

python3 - configs/README.md man/metis.ini.5 <<'PY' || exit 1
import re, sys

readme_path, man_path = sys.argv[1], sys.argv[2]

def norm_key(k):
    # "<kind>_mode" in the README, "kind_mode" (italic kind) in the page.
    return k.replace('<', '').replace('>', '')

def norm_section(title):
    # "[fs NAME]" -> "fs"
    return title.strip().strip('"').strip('[]').split()[0]

# ---- README: "## [section]" blocks. Keys are the first cells of tables headed "key", the
# operation list of [ops], and paragraphs that open with "`name` (". A [bits] table headed
# "name"/"names" lists the bits of the key whose paragraph precedes it.
def readme_keys(text):
    keys, defaults, bits = {}, {}, {}
    blocks = re.split(r'^## ', text, flags=re.M)
    for block in blocks[1:]:
        title, _, body = block.partition('\n')
        if not title.startswith('['):
            continue
        sec = norm_section(title)
        ks = keys.setdefault(sec, set())
        header, last_prose_key = None, None
        for line in body.split('\n'):
            m = re.match(r'^`([^`]+)` \(', line)
            if m:
                last_prose_key = norm_key(m.group(1))
                ks.add(last_prose_key)
            if not line.startswith('|'):
                header = None
                continue
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if header is None:
                header = [c.lower() for c in cells]
                continue
            if set(line) <= set('|-: '):
                continue
            if header[0] == 'key':
                k = norm_key(cells[0].strip('`'))
                ks.add(k)
                if 'default' in header:
                    defaults[(sec, k)] = cells[header.index('default')]
            elif header[0] in ('name', 'names') and last_prose_key:
                dflt = re.search(r'\d+(\.\d+)?', cells[-1]).group(0)
                for b in re.findall(r'`([^`]+)`', cells[0]):
                    bits.setdefault((sec, last_prose_key), {})[b] = dflt
        if sec == 'ops':
            m = re.search(r'`([a-z_]+(?:\s+[a-z_]+){4,})`', body)
            if m:
                ks.update(m.group(1).split())
    return keys, defaults, bits

# ---- man page: roff to plain words, enough for these pages.
def roff_args(rest):
    args, cur, quoted, i = [], '', False, 0
    while i < len(rest):
        ch = rest[i]
        if quoted:
            if ch == '"' and rest[i + 1:i + 2] == '"':
                cur += '"'
                i += 1
            elif ch == '"':
                quoted = False
            else:
                cur += ch
        elif ch == '"' and not cur:
            quoted = True
        elif ch in ' \t':
            if cur:
                args.append(cur)
            cur = ''
        else:
            cur += ch
        i += 1
    if cur or quoted:
        args.append(cur)
    return args

def unescape(s):
    s = re.sub(r'\\f(\[[^]]*\]|\(..|.)', '', s)
    s = s.replace('\\-', '-').replace('\\&', '').replace('\\e', '\\').replace('\\ ', ' ')
    s = re.sub(r'\\\((..)', lambda m: {'mu': 'x', '<=': '<=', '>=': '>=', 'dq': '"', 'bu': '*'}
               .get(m.group(1), ''), s)
    return s.replace('\\c', '')

def roff_text(line):
    """The words a line puts on the page, or None for a request that prints nothing."""
    if line.startswith('.\\"'):
        return None
    if not line.startswith('.'):
        return unescape(line)
    macro, _, rest = line[1:].partition(' ')
    args = roff_args(rest)
    if macro in ('B', 'I', 'SM'):
        return unescape(' '.join(args))
    if macro in ('BI', 'IB', 'BR', 'RB', 'IR', 'RI'):
        return unescape(''.join(args))
    return None

def man_keys(text):
    keys, entries, bits = {}, {}, {}
    sec, depth, want_tag, cur, cur_key = None, 0, False, None, None
    for line in text.split('\n'):
        if line.startswith('.SH'):
            sec = None
            continue
        if line.startswith('.SS'):
            title = line[3:].strip().strip('"')
            sec = norm_section(title) if title.startswith('[') else None
            depth, want_tag, cur, cur_key = 0, False, None, None
            if sec:
                keys.setdefault(sec, set())
            continue
        if sec is None:
            continue
        if line.startswith('.RS'):
            depth += 1
            continue
        if line.startswith('.RE'):
            depth -= 1
            continue
        if line.startswith('.TP'):
            want_tag = True
            continue
        if want_tag:
            want_tag = False
            tag = (roff_text(line) or '').split()
            if not tag:
                continue
            name = tag[0]
            if depth == 0:
                keys[sec].add(name)
                cur_key = name
                cur = entries.setdefault((sec, name), [])
            elif depth == 1 and cur_key:
                cur = bits.setdefault((sec, cur_key), {}).setdefault(name, [])
            continue
        if line.startswith('.PP') and depth == 0:
            cur = cur_key = None
            continue
        words = roff_text(line)
        if words is not None and cur is not None:
            cur.append(words)
    flat = lambda ws: re.sub(r'\s+', ' ', ' '.join(ws))
    return (keys, {k: flat(v) for k, v in entries.items()},
            {k: {b: flat(t) for b, t in v.items()} for k, v in bits.items()})

r_keys, r_defaults, r_bits = readme_keys(open(readme_path).read())
m_keys, m_entries, m_bits = man_keys(open(man_path).read())
problems = []

expected_sections = {'run', 'fs', 'pool', 'ops', 'sizes', 'bits'}
for name, found in (('configs/README.md', r_keys), ('man/metis.ini.5', m_keys)):
    for sec in sorted(expected_sections - {s for s, k in found.items() if k}):
        problems.append(f'{name}: no keys found in [{sec}] (has its layout changed?)')

for sec in sorted(set(r_keys) | set(m_keys)):
    only_r = r_keys.get(sec, set()) - m_keys.get(sec, set())
    only_m = m_keys.get(sec, set()) - r_keys.get(sec, set())
    for k in sorted(only_r):
        problems.append(f'[{sec}] {k}: in configs/README.md, not in man/metis.ini.5')
    for k in sorted(only_m):
        problems.append(f'[{sec}] {k}: in man/metis.ini.5, not in configs/README.md')

# Every default the README gives in code font, and the word "empty", appear in the sentence of
# the page's entry that starts with "Default" (its last); "required" anywhere in the entry.
for (sec, k), cell in sorted(r_defaults.items()):
    entry = m_entries.get((sec, k))
    if entry is None:
        continue
    said = list(re.finditer(r'\b(No default|Default)\b', entry))
    if not said:
        problems.append(f'[{sec}] {k}: its man/metis.ini.5 entry gives no default')
        continue
    tail = entry[said[-1].start():].lower()
    plain = cell.replace('`', '').lower()
    wants = [(w, tail) for w in re.findall(r'`([^`]+)`', cell)]
    wants += [('empty', tail)] if 'empty' in plain else []
    wants += [('required', entry.lower())] if 'required' in plain else []
    for w, where in wants:
        w = re.sub(r'\s+', ' ', w).lower()
        if not re.search(r'(?<![\w.])' + re.escape(w) + r'(?![\w])', where):
            problems.append(f'[{sec}] {k}: default "{w}" of configs/README.md is not in its '
                            f'man/metis.ini.5 entry')

for key in sorted(set(r_bits) | set(m_bits)):
    rb, mb = r_bits.get(key, {}), m_bits.get(key, {})
    for b in sorted(set(rb) - set(mb)):
        problems.append(f'[{key[0]}] {key[1]} bit {b}: in configs/README.md, not in man/metis.ini.5')
    for b in sorted(set(mb) - set(rb)):
        problems.append(f'[{key[0]}] {key[1]} bit {b}: in man/metis.ini.5, not in configs/README.md')
    for b in sorted(set(rb) & set(mb)):
        if not re.search(r'(^|[^\d.])' + re.escape(rb[b]) + r'($|[^\d.])', mb[b]):
            problems.append(f'[{key[0]}] {key[1]} bit {b}: default {rb[b]} of configs/README.md, '
                            f'man/metis.ini.5 says "{mb[b]}"')

for p in problems:
    print('FAIL:', p)
total = sum(len(v) for v in r_keys.values())
nbits = sum(len(v) for v in r_bits.values())
print(f'{total} keys in {len(r_keys)} sections, {len(r_defaults)} defaults, {nbits} bits compared')
sys.exit(1 if problems else 0)
PY
echo "PASS"
