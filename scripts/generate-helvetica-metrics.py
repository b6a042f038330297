#!/usr/bin/env python3
"""Regenerates Plugins/Baby/Documents/HelveticaMetrics.swift: glyph widths of the standard PDF fonts
Helvetica and Helvetica-Bold (the Oblique faces share them), for the PDF writer's text measuring.

Usage: scripts/generate-helvetica-metrics.py [AFM_DIR]
  (default /usr/share/matplotlib/mpl-data/fonts/pdfcorefonts, Debian's python-matplotlib-data,
   which carries Adobe's Core 14 AFM files, version 002.000, 315 glyphs each)

Two encodings come out of it:
- WinAnsiEncoding (PDF 1.4, Annex D), which the writer uses for every character it covers;
- a supplement: the Central European letters that WinAnsi lacks but the core fonts' glyph sets have
  (Czech, Slovak, Polish, Hungarian), placed at codes 0x21… of a second font resource whose
  /Encoding is a /Differences array of these glyph names.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Plugins", "Baby", "Documents", "HelveticaMetrics.swift")

# WinAnsiEncoding's glyph names by code (PDF Reference 1.4, Annex D); None where it has none.
ASCII = ("space exclam quotedbl numbersign dollar percent ampersand quotesingle parenleft parenright "
         "asterisk plus comma hyphen period slash zero one two three four five six seven eight nine colon "
         "semicolon less equal greater question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z "
         "bracketleft backslash bracketright asciicircum underscore grave a b c d e f g h i j k l m n o p q r "
         "s t u v w x y z braceleft bar braceright asciitilde").split()
HIGH = ("Euro - quotesinglbase florin quotedblbase ellipsis dagger daggerdbl circumflex perthousand Scaron "
        "guilsinglleft OE - Zcaron - - quoteleft quoteright quotedblleft quotedblright bullet endash emdash "
        "tilde trademark scaron guilsinglright oe - zcaron Ydieresis "
        "space exclamdown cent sterling currency yen brokenbar section dieresis copyright ordfeminine "
        "guillemotleft logicalnot hyphen registered macron degree plusminus twosuperior threesuperior acute mu "
        "paragraph periodcentered cedilla onesuperior ordmasculine guillemotright onequarter onehalf "
        "threequarters questiondown Agrave Aacute Acircumflex Atilde Adieresis Aring AE Ccedilla Egrave Eacute "
        "Ecircumflex Edieresis Igrave Iacute Icircumflex Idieresis Eth Ntilde Ograve Oacute Ocircumflex Otilde "
        "Odieresis multiply Oslash Ugrave Uacute Ucircumflex Udieresis Yacute Thorn germandbls agrave aacute "
        "acircumflex atilde adieresis aring ae ccedilla egrave eacute ecircumflex edieresis igrave iacute "
        "icircumflex idieresis eth ntilde ograve oacute ocircumflex otilde odieresis divide oslash ugrave uacute "
        "ucircumflex udieresis yacute thorn ydieresis").split()
assert len(ASCII) == 95 and len(HIGH) == 128

# The supplement: glyph name and the character it is.
SUPPLEMENT = [
    # Czech and Slovak
    ("Ccaron", "Č"), ("ccaron", "č"), ("Dcaron", "Ď"), ("dcaron", "ď"), ("Ecaron", "Ě"), ("ecaron", "ě"),
    ("Ncaron", "Ň"), ("ncaron", "ň"), ("Rcaron", "Ř"), ("rcaron", "ř"), ("Tcaron", "Ť"), ("tcaron", "ť"),
    ("Uring", "Ů"), ("uring", "ů"), ("Lacute", "Ĺ"), ("lacute", "ĺ"), ("Lcaron", "Ľ"), ("lcaron", "ľ"),
    ("Racute", "Ŕ"), ("racute", "ŕ"),
    # Polish
    ("Aogonek", "Ą"), ("aogonek", "ą"), ("Cacute", "Ć"), ("cacute", "ć"), ("Eogonek", "Ę"), ("eogonek", "ę"),
    ("Lslash", "Ł"), ("lslash", "ł"), ("Nacute", "Ń"), ("nacute", "ń"), ("Sacute", "Ś"), ("sacute", "ś"),
    ("Zacute", "Ź"), ("zacute", "ź"), ("Zdotaccent", "Ż"), ("zdotaccent", "ż"),
    # Hungarian
    ("Ohungarumlaut", "Ő"), ("ohungarumlaut", "ő"), ("Uhungarumlaut", "Ű"), ("uhungarumlaut", "ű"),
]
SUPPLEMENT_FIRST_CODE = 0x21


def read_widths(path):
    widths = {}
    with open(path, encoding="latin-1") as f:
        for line in f:
            if not line.startswith("C "):
                continue
            fields = dict(part.strip().split(" ", 1) for part in line.strip().rstrip(";").split(";") if part.strip())
            widths[fields["N"]] = int(fields["WX"])
    return widths


def win_ansi_widths(widths):
    row = []
    for code in range(256):
        if 0x20 <= code <= 0x7E:
            name = ASCII[code - 0x20]
        elif code >= 0x80:
            name = HIGH[code - 0x80]
        else:
            name = "-"
        row.append(0 if name == "-" else widths[name])
    return row


def win_ansi_scalars():
    """Unicode scalar → WinAnsi code, for 0x80–0x9F (the rest of WinAnsi is Latin-1 itself)."""
    pairs = []
    for code in range(0x80, 0xA0):
        if HIGH[code - 0x80] == "-":
            continue
        pairs.append((ord(bytes([code]).decode("cp1252")), code))
    return pairs


def swift_array(values, per_line=16):
    lines = []
    for offset in range(0, len(values), per_line):
        lines.append("        " + ", ".join(str(v) for v in values[offset:offset + per_line]) + ",")
    return "\n".join(lines)


def main():
    afm_dir = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/matplotlib/mpl-data/fonts/pdfcorefonts"
    regular = read_widths(os.path.join(afm_dir, "Helvetica.afm"))
    bold = read_widths(os.path.join(afm_dir, "Helvetica-Bold.afm"))
    for name, _ in SUPPLEMENT:
        if name not in regular or name not in bold:
            sys.exit(f"{name} is not in the core font's glyph set")
    high = win_ansi_scalars()
    text = f"""// Generated by scripts/generate-helvetica-metrics.py from Adobe's Core 14 AFM files (Helvetica,
// Helvetica-Bold, version 002.000). Do not edit by hand: edit the script and rerun it.

/// Advance widths (1/1000 em) of the standard fonts Helvetica and Helvetica-Bold; the Oblique
/// faces have the same widths as their upright ones.
enum HelveticaMetrics {{
    /// Regular widths by WinAnsi code (0 where WinAnsi has no glyph).
    static let winAnsiRegular: [UInt16] = [
{swift_array(win_ansi_widths(regular))}
    ]

    /// Bold widths by WinAnsi code (0 where WinAnsi has no glyph).
    static let winAnsiBold: [UInt16] = [
{swift_array(win_ansi_widths(bold))}
    ]

    /// WinAnsi's codes 0x80–0x9F: the Unicode scalar each stands for (the rest of the table is Latin-1).
    static let winAnsiHigh: [UInt32: UInt8] = [
{chr(10).join(f"        0x{scalar:04X}: 0x{code:02X}," for scalar, code in high)}
    ]

    /// The supplement encoding's first code; its glyphs follow in `supplement`'s order.
    static let supplementFirstCode: UInt8 = 0x{SUPPLEMENT_FIRST_CODE:02X}

    /// The supplement's glyphs: name (for the font's /Differences), the scalar it stands for, and
    /// its regular and bold widths.
    static let supplement: [(glyph: String, scalar: UInt32, regular: UInt16, bold: UInt16)] = [
{chr(10).join(f'        ("{name}", 0x{ord(char):04X}, {regular[name]}, {bold[name]}),  // {char}' for name, char in SUPPLEMENT)}
    ]
}}
"""
    with open(OUT, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
