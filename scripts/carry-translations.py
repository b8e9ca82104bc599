#!/usr/bin/env python3
"""Fills unfinished messages of a .ts file with the translation the same
source text has elsewhere (a string that moved to another class keeps its
Chinese). Usage: carry-translations.py OLD.ts NEW.ts (NEW is rewritten)."""
import sys
import xml.etree.ElementTree as ET


def translations(root):
    known = {}
    for msg in root.iter('message'):
        src = msg.findtext('source')
        tr = msg.find('translation')
        if src is None or tr is None or tr.get('type') in ('unfinished', 'obsolete', 'vanished'):
            continue
        if msg.get('numerus') == 'yes':
            forms = [f.text or '' for f in tr.findall('numerusform')]
            if forms and all(forms):
                known.setdefault((src, True), forms)
        elif tr.text:
            known.setdefault((src, False), tr.text)
    return known


def main(old_path, new_path):
    known = translations(ET.parse(old_path).getroot())
    tree = ET.parse(new_path)
    filled = 0
    for msg in tree.getroot().iter('message'):
        tr = msg.find('translation')
        if tr is None or tr.get('type') != 'unfinished':
            continue
        numerus = msg.get('numerus') == 'yes'
        found = known.get((msg.findtext('source'), numerus))
        if found is None:
            continue
        if numerus:
            for f in tr.findall('numerusform'):
                tr.remove(f)
            for text in found:
                ET.SubElement(tr, 'numerusform').text = text
        else:
            tr.text = found
        del tr.attrib['type']
        filled += 1
    with open(new_path, 'wb') as f:
        f.write(b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n')
        tree.write(f, encoding='utf-8', xml_declaration=False)
    print(f'{filled} moved strings keep their translation')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
