# SPDX-License-Identifier: GPL-2.0
"""Reports: numbers as text, Markdown tables, JSON files."""
import json


def fmt(x, nd=0, suffix="", missing="-"):
    """X with ND decimals (and SUFFIX), or MISSING for None."""
    return missing if x is None else f"{x:.{nd}f}{suffix}"


def spread(xs, nd=0):
    """'min-max' of the measured values of XS, or '-'."""
    v = [x for x in xs if x is not None]
    return f"{min(v):.{nd}f}-{max(v):.{nd}f}" if v else "-"


def num(x):
    """X as awk's print writes a number (whole numbers as integers, others
    %.6g), or 'nan' for None."""
    if x is None:
        return "nan"
    return str(int(x)) if x == int(x) and abs(x) < 2 ** 53 else f"{x:.6g}"


def md_row(cells):
    """One Markdown table row; an empty cell stays empty."""
    return "|" + "".join(f" {c} |" if c != "" else " |" for c in cells)


def md_table(header, rows, align=None):
    """A Markdown table. ALIGN: one letter per column, l (---) or r (---:),
    or a string of one letter for all (default l)."""
    align = align or "l"
    if len(align) == 1:
        align = align * len(header)
    sep = "|" + "".join("---:|" if a == "r" else "---|" for a in align)
    return "\n".join([md_row(header), sep] + [md_row(r) for r in rows])


def write_json(path, doc):
    """DOC as an indented JSON document in PATH."""
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
