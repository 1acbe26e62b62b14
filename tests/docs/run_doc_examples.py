#!/usr/bin/python3
"""The documentation's code blocks as tests: a stale example fails `make test`.

The blocks are read from the Markdown files themselves (not copied), so the text a reader sees
is the text that runs.

    run_doc_examples.py python --build BUILD [--source SRC] FILE.md...
        runs each file's ```python blocks in order, in one interpreter per file (a later block
        sees what an earlier one defined, as a reader reading the page would), with BUILD/python
        on PYTHONPATH, from a scratch directory that mirrors the source root (every top-level
        entry linked), so paths like robots/a1/... resolve and written files land in the scratch
        directory
    run_doc_examples.py list-cpp FILE.md...
        one line "NAME|FILE|INDEX" per ```cpp block marked to run (CMake builds each)
    run_doc_examples.py extract-cpp FILE.md INDEX OUT.cpp
        writes the marked block INDEX of FILE.md to OUT.cpp (only when its text changed)
    run_doc_examples.py run [--source SRC] -- PROGRAM [ARGS...]
        runs a built example from such a scratch directory

Markers, an HTML comment on the line before the fence (invisible on the rendered page):
    <!-- doc-test: run -->           a ```cpp block that is a whole program: compiled and run
    <!-- doc-test: skip REASON -->   a ```python block that is not run (REASON says why)
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")
MARKER = re.compile(r"^<!--\s*doc-test:\s*(run|skip)\b\s*(.*?)\s*-->\s*$")
SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this script


def blocks(path):
    """[(language, marker, reason, first line number of the code, code)] of a Markdown file."""
    out = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        marker, reason = None, ""
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        if k >= 0:
            mk = MARKER.match(lines[k].strip())
            if mk:
                marker, reason = mk.group(1), mk.group(2)
        start = i + 1
        j = start
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        if j == len(lines):
            raise SystemExit(f"{path}:{i + 1}: a code block that is never closed")
        out.append((m.group(1), marker, reason, start + 1, "\n".join(lines[start:j]) + "\n"))
        i = j + 1
    return out


def cpp_blocks(path):
    return [b for b in blocks(path) if b[0] == "cpp" and b[1] == "run"]


def block_name(path, index):
    stem = re.sub(r"[^A-Za-z0-9]+", "_", os.path.splitext(os.path.basename(path))[0]).strip("_")
    return f"{stem}_{index + 1}"


def mirror(source):
    """A scratch directory whose top-level entries link to those of the source root."""
    scratch = tempfile.mkdtemp(prefix="maxsim_doc_")
    for name in os.listdir(source):
        if name in (".git",) or name.startswith("build"):
            continue
        os.symlink(os.path.join(source, name), os.path.join(scratch, name))
    return scratch


def run_python(build, source, files):
    env = dict(os.environ)
    module_dir = os.path.join(os.path.abspath(build), "python")
    if not os.path.isdir(os.path.join(module_dir, "maxsim")):
        print(f"the Python module is not built ({module_dir}/maxsim missing)")
        return SKIPPED
    env["PYTHONPATH"] = module_dir + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    failed = 0
    total = 0
    for path in files:
        full = os.path.join(source, path) if not os.path.isabs(path) else path
        todo = [b for b in blocks(full) if b[0] == "python"]
        for lang, marker, reason, line, code in todo:
            if marker == "skip":
                print(f"{path}:{line}: skipped ({reason or 'no reason given'})")
        runnable = [(line, code) for lang, marker, reason, line, code in todo if marker != "skip"]
        if not runnable:
            continue
        total += len(runnable)
        scratch = mirror(source)
        try:
            args = [sys.executable, os.path.abspath(__file__), "exec-python", full]
            for line, _ in runnable:
                args.append(str(line))
            r = subprocess.run(args, cwd=scratch, env=env, timeout=600)
            if r.returncode != 0:
                failed += 1
                print(f"{path}: FAILED (exit status {r.returncode})")
            else:
                print(f"{path}: {len(runnable)} Python block(s) ran")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"{total} Python blocks in {len(files)} files; files failed: {failed}")
    return 1 if failed else 0


def exec_python(path, lines):
    """In the child: the blocks starting at these lines, in order, in one namespace."""
    wanted = {int(x) for x in lines}
    namespace = {"__name__": "__main__"}
    for lang, marker, reason, line, code in blocks(path):
        if lang != "python" or line not in wanted:
            continue
        # padded so that tracebacks give the Markdown file's own line numbers
        compiled = compile("\n" * (line - 1) + code, path, "exec")
        try:
            exec(compiled, namespace)
        except BaseException:
            print(f"{path}:{line}: the block starting here raised:", file=sys.stderr)
            traceback.print_exc()
            return 1
        sys.stdout.flush()
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd = argv[1]
    if cmd == "python":
        build, source, files = None, os.getcwd(), []
        i = 2
        while i < len(argv):
            if argv[i] == "--build":
                build = argv[i + 1]
                i += 2
            elif argv[i] == "--source":
                source = argv[i + 1]
                i += 2
            else:
                files.append(argv[i])
                i += 1
        if not build or not files:
            print("python: needs --build BUILD and the Markdown files")
            return 2
        return run_python(build, os.path.abspath(source), files)
    if cmd == "exec-python":
        return exec_python(argv[2], argv[3:])
    if cmd == "list-cpp":
        for path in argv[2:]:
            for k, _ in enumerate(cpp_blocks(path)):
                print(f"{block_name(path, k)}|{path}|{k}")
        return 0
    if cmd == "extract-cpp":
        path, index, out = argv[2], int(argv[3]), argv[4]
        found = cpp_blocks(path)
        if index >= len(found):
            print(f"{path}: no marked C++ block {index} (re-run CMake)")
            return 1
        lang, marker, reason, line, code = found[index]
        text = f'#line {line} "{os.path.abspath(path)}"\n' + code
        if not (os.path.exists(out) and open(out, encoding="utf-8").read() == text):
            os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
            with open(out, "w", encoding="utf-8") as f:
                f.write(text)
        return 0
    if cmd == "run":
        source = os.getcwd()
        i = 2
        if i < len(argv) and argv[i] == "--source":
            source = argv[i + 1]
            i += 2
        if i < len(argv) and argv[i] == "--":
            i += 1
        program = argv[i:]
        if not program:
            print("run: needs a program")
            return 2
        if not os.path.exists(program[0]):
            print(f"{program[0]} is not built (this build leaves the documentation's examples out)")
            return SKIPPED
        scratch = mirror(os.path.abspath(source))
        try:
            return subprocess.run(program, cwd=scratch, timeout=600).returncode
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"unknown command {cmd!r}\n{__doc__}")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
