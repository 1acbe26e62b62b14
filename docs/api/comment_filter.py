#!/usr/bin/python3
"""Doxygen's INPUT_FILTER for maxsim's headers: the project's plain comments are its documentation.

The headers document every declaration with ordinary `//` comments (one line saying what it is,
and why where it matters). Doxygen reads only `///`-style comments, so this filter hands it each
header with its comments turned into documentation, leaving the files themselves as they are:
  * the comment block that opens a file documents the file (\\file);
  * a line that is only a comment documents the declaration that follows it;
  * a comment after code on the same line documents that member (///<);
  * divider lines (// ---- name ----) and comments inside function bodies are left alone;
  * characters Doxygen would take as commands or markup (\\ @ < > & # %) are escaped.
"""

import re
import sys

SPECIAL = re.compile(r"([\\@<>&#%$])")
DIVIDER = re.compile(r"^\s*//\s*[-=]{3,}")


def escape(text):
    return SPECIAL.sub(r"\\\1", text)


def split_declarators(code):
    """`T a = 1, b;` as [`T a = 1;`, `T b;`] (Doxygen documents only one name of such a line);
    [code] when the line is not a plain declaration of several variables."""
    body = code.rstrip()
    if not body.endswith(";") or "(" in body.split("=")[0] or body.lstrip().startswith(("return", "using", "typedef")):
        return [code]
    parts, depth, start = [], 0, 0
    for i, c in enumerate(body[:-1]):
        if c in "<({[":
            depth += 1
        elif c in ">)}]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    if not parts:
        return [code]
    parts.append(body[start:-1])
    first = parts[0]
    m = re.match(r"^(\s*)(.*?)(\b[A-Za-z_]\w*\s*(=.*)?)$", first)
    if not m:
        return [code]
    indent, type_, _ = m.group(1), m.group(2), m.group(3)
    if not type_.strip():
        return [code]
    out = [first.rstrip() + ";"]
    for rest in parts[1:]:
        out.append(indent + type_ + rest.strip() + ";")
    return out


def code_part(line):
    """The line without its trailing // comment (ignoring // inside string literals), and the comment."""
    in_string = False
    i = 0
    while i < len(line):
        c = line[i]
        if c == '"' and (i == 0 or line[i - 1] != "\\"):
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            return line[:i], line[i + 2:]
        i += 1
    return line, None


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    depth = 0  # brace depth of function bodies (class and namespace bodies are not counted)
    opening = True  # still in the comment block that opens the file
    pending_body = False
    last_doc = ""  # the first line of the comment block just above (for split declarations)
    group_doc, chain = "", False  # that block's text, and whether the lines since continue its group
    fresh = False  # the next declaration is the one the block documents
    for line in lines:
        stripped = line.strip()
        if opening:
            if stripped.startswith("//"):
                text = stripped[2:].lstrip("/").strip()
                if not out:
                    out.append("/// \\file")
                out.append("/// " + escape(text))
                continue
            opening = False
        code, comment = code_part(line)
        if depth > 0 or pending_body:
            # inside a function body: nothing is documentation
            depth += code.count("{") - code.count("}")
            if pending_body and "{" in code:
                pending_body = False
            out.append(line)
            continue
        plain = code.strip()
        complete = bool(plain) and (plain.endswith(";") or plain.endswith("}")) and not plain.startswith(("}", "#"))
        if not line.strip():
            chain, group_doc, fresh = False, "", False
        decls = split_declarators(code) if plain and not plain.startswith("#") else [code]
        if len(decls) > 1:
            # one declaration per name, each with the line's comment, or the one just above it
            trailing = comment is not None and not comment.startswith(("/", "!"))
            doc = escape(comment.strip()) if trailing else last_doc
            for k, d in enumerate(decls):
                # (the first name already has the block above it)
                out.append(d + ("  ///< " + doc if doc and (trailing or k > 0) else ""))
            last_doc = ""
            continue
        if comment is not None and (plain.startswith("#") or re.match(r"^\}\s*;?$", plain)):
            comment = None  # (after a preprocessor line or a closing brace: no declaration to document)
            out.append(line)
        elif comment is not None and not comment.startswith("/") and not comment.startswith("!"):
            if not code.strip():
                if DIVIDER.match(line):
                    out.append(line)
                else:
                    out.append(code + "/// " + escape(comment.strip()))
                    last_doc = escape(comment.strip()) if not last_doc else last_doc
                    group_doc = (group_doc + " " if fresh else "") + escape(comment.strip())
                    chain, fresh = True, True
            else:
                out.append(code + "///< " + escape(comment.strip()))
                # (a documented one-line declaration carries its own comment, not the group's)
                chain = chain and complete
        elif complete and chain and fresh:
            out.append(line)  # the declaration the block above documents
            fresh = False
        elif complete and chain and group_doc and not plain.startswith(("public:", "private:", "protected:")):
            # a declaration right below a documented one, with no comment of its own: the
            # headers write one comment over a group of overloads or siblings
            out.append(line.rstrip() + "  ///< " + group_doc)
        else:
            out.append(line)
            if plain and not complete:
                chain = False
        if plain:
            fresh = False
        if plain:
            last_doc = ""
        # a function body starts where a ')' (and qualifiers) is followed by '{' on a declaration line
        if re.search(r"\)\s*(const)?\s*(noexcept)?\s*(override)?\s*(->\s*[\w:<>&*\s]+)?\{", code) and \
                not re.match(r"\s*(struct|class|enum|namespace|union)\b", code):
            opened = code.count("{") - code.count("}")
            if opened > 0:
                depth += opened
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
