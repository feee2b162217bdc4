#!/usr/bin/env bash
# configs/README.md and man/metis.ini.5 document the keys of config_keys.c's key table (`metis config-keys`): every key, its default, its range where they state one, its bits.
. "$(dirname "$0")/../../lib/common.sh"
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
"$METIS_BIN/metis" config-keys > "$T/keys.tsv" || fail "metis config-keys failed"

python3 - configs/README.md man/metis.ini.5 "$T/keys.tsv" <<'PY' || exit 1
import re, sys

readme_path, man_path, keys_path = sys.argv[1], sys.argv[2], sys.argv[3]

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
    global r_rows, r_bodies
    r_rows, r_bodies = {}, {}
    blocks = re.split(r'^## ', text, flags=re.M)
    for block in blocks[1:]:
        title, _, body = block.partition('\n')
        if not title.startswith('['):
            continue
        sec = norm_section(title)
        r_bodies[sec] = body
        ks = keys.setdefault(sec, set())
        header, last_prose_key = None, None
        for line in body.split('\n'):
            m = re.match(r'^`([^`]+)` \((?:default `([^`]+)`)?', line)
            if m:
                last_prose_key = norm_key(m.group(1))
                ks.add(last_prose_key)
                if m.group(2):
                    defaults[(sec, last_prose_key)] = '`' + m.group(2) + '`'
                    r_rows[(sec, last_prose_key)] = line
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
                r_rows[(sec, k)] = ' | '.join(cells)
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
    global m_intro
    m_intro = {}
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
        elif words is not None and depth == 0:
            m_intro.setdefault(sec, []).append(words)
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

# ---- config_keys.c's key table (metis config-keys) against both documents.
def number(t):
    t = t.replace(',', '')
    m = re.fullmatch(r'(\d+(?:\.\d+)?)([KMG]?)', t)
    return float(m.group(1)) * 1024 ** ' KMG'.index(m.group(2) or ' ') if m else None

table, items = {}, {}
for line in open(keys_path):
    f = line.rstrip('\n').split('\t')
    if f[0] == 'key':
        _, sec, name, kind, lo, hi, d = f
        doc = 'kind_mode' if kind == 'part_mode' else name
        table.setdefault((sec, doc), []).append({
            'kind': kind, 'range': None if lo == '-' else (float(lo), float(hi)),
            'dflt': None if d == '-' else d})
    elif f[0] == 'item':
        items.setdefault((f[1], f[2]), {})[f[3]] = f[4]

m_flat = {sec: re.sub(r'\s+', ' ', ' '.join(ws)) for sec, ws in m_intro.items()}

def ops_defaults(text, strip):
    """{op: weight} the [ops] prose gives: "keeps weight D, except OP (W)"."""
    t = text.replace('`', '') if strip else text
    m = re.search(r'keeps weight (\d+),? except (.*?)\.(\s|$)', t, re.S)
    if not m:
        return None
    return m.group(1), dict(re.findall(r'(\w+) \((\d+)\)', m.group(2)))

r_ops = ops_defaults(r_bodies.get('ops', ''), True)
m_ops = ops_defaults(m_flat.get('ops', ''), False)
if not r_ops or not m_ops:
    problems.append('[ops]: no "keeps weight D, except OP (W)" sentence in '
                    + ('configs/README.md' if not r_ops else 'man/metis.ini.5'))

def readme_says_default(sec, k, d):
    if sec == 'ops':
        return r_ops is not None and r_ops[1].get(k, r_ops[0]) == d
    cell = r_defaults.get((sec, k))
    if cell is None:
        return False
    if d == '':
        return 'empty' in cell.lower()
    return any(re.sub(r'\s+', ' ', c) == d for c in re.findall(r'`([^`]+)`', cell))

def man_says_default(sec, k, d):
    if sec == 'ops':
        return m_ops is not None and m_ops[1].get(k, m_ops[0]) == d
    entry = m_entries.get((sec, k), '')
    said = list(re.finditer(r'\b(No default|Default)\b', entry))
    tail = entry[said[-1].start():].lower() if said else ''
    if d == '':
        return 'empty' in tail
    return re.search(r'(?<![\w.])' + re.escape(d.lower()) + r'(?![\w])', tail) is not None

def ranges_in(text, sep):
    pat = r'(\d[\d,.]*[KMG]?) ' + sep + r' (\d[\d,.]*[KMG]?)'
    return [(number(a.rstrip('.,')), number(b.rstrip('.,'))) for a, b in re.findall(pat, text)]

def check_range(sec, k, row, doc_name, text, sep, top_pat):
    if row['kind'] == 'partitions':
        m = re.search(top_pat, text)
        if not m:
            problems.append(f'[{sec}] {k}: {doc_name} gives no largest lower bound (2^N)')
        elif 2.0 ** int(m.group(1)) != row['range'][1]:
            problems.append(f'[{sec}] {k}: largest lower bound 2^{m.group(1)} in {doc_name}, '
                            f'{row["range"][1]:.0f} in config.c\'s key table')
        return
    found = ranges_in(text, sep)
    if found and row['range'] not in found:
        lo, hi = row['range']
        problems.append(f'[{sec}] {k}: range {lo:.15g} .. {hi:.15g} of config.c\'s key table is not '
                        f'among those {doc_name} states ({found})')

for (sec, k), rows in sorted(table.items()):
    for name, ks in (('configs/README.md', r_keys), ('man/metis.ini.5', m_keys)):
        if k not in ks.get(sec, set()):
            problems.append(f'[{sec}] {k}: in config.c\'s key table, not in {name}')
    for d in sorted({r['dflt'] for r in rows if r['dflt'] is not None}):
        if not readme_says_default(sec, k, d):
            problems.append(f'[{sec}] {k}: default "{d}" of config.c\'s key table is not the one '
                            f'configs/README.md gives')
        if not man_says_default(sec, k, d):
            problems.append(f'[{sec}] {k}: default "{d}" of config.c\'s key table is not in its '
                            f'man/metis.ini.5 entry')
    for row in rows:
        if row['range'] is None:
            continue
        r_text = r_bodies.get('ops', '') if sec == 'ops' else r_rows.get((sec, k), '')
        m_text = m_flat.get('ops', '') if sec == 'ops' else m_entries.get((sec, k), '')
        check_range(sec, k, row, 'configs/README.md', r_text, r'\.\.', r'2\^(\d+)')
        check_range(sec, k, row, 'man/metis.ini.5', m_text, 'to',
                    r'largest lower bound(?: allowed is)? 2\^(\d+)')
    if any(r['kind'] == 'boolean' for r in rows):
        if 'boolean' not in r_rows.get((sec, k), '').lower():
            problems.append(f'[{sec}] {k}: a boolean in config.c\'s key table, not in configs/README.md')
        if 'boolean' not in m_entries.get((sec, k), '').lower():
            problems.append(f'[{sec}] {k}: a boolean in config.c\'s key table, not in man/metis.ini.5')

for name, ks in (('configs/README.md', r_keys), ('man/metis.ini.5', m_keys)):
    for sec in sorted(ks):
        for k in sorted(ks[sec] - {dk for s, dk in table if s == sec}):
            problems.append(f'[{sec}] {k}: in {name}, not in config.c\'s key table')

for key, code in sorted(items.items()):
    for name, doc in (('configs/README.md', r_bits), ('man/metis.ini.5', m_bits)):
        got = doc.get(key, {})
        for b in sorted(set(code) - set(got)):
            problems.append(f'[{key[0]}] {key[1]} item {b}: in config.c, not in {name}')
        for b in sorted(set(got) - set(code)):
            problems.append(f'[{key[0]}] {key[1]} item {b}: in {name}, not in config.c')
        for b in sorted(set(code) & set(got)):
            nums = [float(x) for x in re.findall(r'(?<![\w.])\d+(?:\.\d+)?(?![\w.])', got[b])]
            if float(code[b]) not in nums:
                problems.append(f'[{key[0]}] {key[1]} item {b}: default {code[b]} in config.c, '
                                f'{name} says "{got[b]}"')

for p in problems:
    print('FAIL:', p)
total = sum(len(v) for v in r_keys.values())
nbits = sum(len(v) for v in r_bits.values())
print(f'{total} keys in {len(r_keys)} sections, {len(r_defaults)} defaults, {nbits} bits compared; '
      f'{len(table)} keys of config.c\'s key table checked against both')
sys.exit(1 if problems else 0)
PY
echo "PASS"
