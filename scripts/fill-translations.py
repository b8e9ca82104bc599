#!/usr/bin/env python3
"""Fills unfinished messages of a .ts file from tab-separated lines
`Context<TAB>English source<TAB>Chinese` (\\n in a field stands for a line
break). Usage: fill-translations.py FILE.ts TSV... ; prints what is still
unfinished."""
import sys
import xml.etree.ElementTree as ET


def unescape(s):
    return s.replace('\\n', '\n').replace('\\t', '\t')


def main(ts_path, tsv_paths):
    table = {}
    by_source = {}
    for path in tsv_paths:
        with open(path, encoding='utf-8') as f:
            for line in f:
                line = line.rstrip('\n')
                if not line.strip() or line.startswith('#'):
                    continue
                parts = line.split('\t')
                if len(parts) != 3:
                    print(f'{path}: skipped (not 3 fields): {line[:60]}', file=sys.stderr)
                    continue
                ctx, src, zh = (unescape(p) for p in parts)
                table[(ctx, src)] = zh
                by_source.setdefault(src, zh)
    tree = ET.parse(ts_path)
    filled = 0
    left = []
    for context in tree.getroot().iter('context'):
        ctx = context.findtext('name')
        for msg in context.iter('message'):
            tr = msg.find('translation')
            if tr is None or tr.get('type') != 'unfinished':
                continue
            src = msg.findtext('source')
            zh = table.get((ctx, src), by_source.get(src))
            if zh is None:
                left.append((ctx, src))
                continue
            if msg.get('numerus') == 'yes':
                for f in list(tr):
                    tr.remove(f)
                ET.SubElement(tr, 'numerusform').text = zh
            else:
                tr.text = zh
            del tr.attrib['type']
            filled += 1
    with open(ts_path, 'wb') as f:
        f.write(b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n')
        tree.write(f, encoding='utf-8', xml_declaration=False)
    print(f'filled {filled}; still unfinished {len(left)}')
    for ctx, src in left:
        print(f'{ctx}\t{src}'.replace('\n', '\\n'))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:])
