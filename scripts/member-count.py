#!/usr/bin/env python3
"""Counts the members a Swift type declares, across its class body and its extensions.

    scripts/member-count.py PluginHost Sources/TesseraRuntime
    scripts/member-count.py HubStore Sources/TesseraHub

A member is a `func`, `var`, `let`, `init`, `subscript` or `case` declared directly in the body
of `class|struct|actor|extension NAME` (nested types' members are not counted). Text-based, not a
parser: it is for stating a type's size before and after a change (issue 44), the same way both
times. `-v` lists each member.
"""
import os
import re
import sys


def count(name, roots, verbose=False):
    decl = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|private|fileprivate|package|nonisolated|static|final|'
                      r'override|mutating|convenience|required|lazy|weak|unowned)\s+)*(func|var|let|init|subscript|case)\b')
    head = re.compile(r'^\s*(?:(?:public|private|fileprivate|internal|package|final)\s+)*(?:class|struct|actor|extension)\s+'
                      + re.escape(name) + r'\b')
    total = public = 0
    files = set()
    for root in roots:
        for directory, _, names in os.walk(root):
            for file in sorted(names):
                if not file.endswith('.swift'):
                    continue
                path = os.path.join(directory, file)
                depth, inside, start = 0, False, 0
                for line in open(path, encoding='utf-8'):
                    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line).split('//')[0]
                    if not inside and head.match(code):
                        inside, start = True, depth
                        files.add(path)
                    elif inside and depth == start + 1:
                        match = decl.match(code)
                        if match:
                            total += 1
                            if 'public' in code.split(match.group(1))[0]:
                                public += 1
                            if verbose:
                                print(path, code.strip()[:100])
                    depth += code.count('{') - code.count('}')
                    if inside and depth <= start and '}' in code:
                        inside = False
    return total, public, len(files)


if __name__ == '__main__':
    args = [a for a in sys.argv[1:] if a != '-v']
    if len(args) < 2:
        sys.exit(__doc__)
    total, public, files = count(args[0], args[1:], verbose='-v' in sys.argv)
    print(f"{args[0]}: {total} members ({public} public) over {files} files")
