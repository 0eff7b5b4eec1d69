#!/usr/bin/env python3
"""Checks the documentation against the code (`make check-docs`).

  1. docs/user/parameters.md is exactly what `stmpi_info --markdown` prints;
  2. every STMPI_* name the docs use is a runtime parameter, a variable a
     script under maint/, test/ or .ci/ reads, or a name the sources define;
  3. every repository path written in backticks exists;
  4. every MPIX_* name is declared in include/mpix.h or include/mpi.h;
  5. every complete example in docs/user/*.md (a ```c block whose first line
     is `/* example NAME.c, run on N ranks: ... */`) compiles against the
     build and runs with the build's mpiexec on N ranks within 60 s.

One line per failure, then `check-docs: N passed, N failed`; the exit status
is 1 when something failed. `--self-test` runs the checks on a small made-up
tree with one fault of each kind and fails unless every fault is caught.
Python standard library only.
"""

import argparse
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

PAGE = "docs/user/parameters.md"
EXAMPLE_LINE = re.compile(r"^/\* example ([a-z0-9_]+)\.c, run on ([1-9][0-9]*) ranks: .+\*/$")
STMPI_NAME = re.compile(r"\bSTMPI_[A-Z0-9_]*\*?")
MPIX_NAME = re.compile(r"\bMPIX_\w+\*?")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
FENCE = re.compile(r"^\s*(```|~~~)")
# Files whose names alone mark them as paths (when written without a '/').
PATH_EXTENSIONS = (".c", ".cc", ".h", ".hpp", ".cu", ".hip", ".f90", ".py", ".sh", ".mk", ".am",
                   ".ac", ".in", ".md", ".txt", ".spec", ".yml", ".yaml", ".json")
PLACEHOLDER = re.compile(r"[<>{}()\[\]|;,=\"']")
SKIP_DIRS = {".git", "autom4te.cache", "node_modules"}


class Checker:
    def __init__(self, srcdir, builddir, info, cc, cflags, libs, mpiexec, workdir, timeout=60):
        self.srcdir = os.path.abspath(srcdir)
        self.builddir = os.path.abspath(builddir) if builddir else None
        self.info = info
        self.cc = cc
        self.cflags = cflags
        self.libs = libs
        self.mpiexec = mpiexec
        self.workdir = workdir
        self.timeout = timeout
        self.passed = 0
        self.failed = 0
        self.params = set()
        self.basenames = None

    def fail(self, message):
        print(message)

    def count(self, ok):
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    # ---- the files ---------------------------------------------------------
    def walk(self, top):
        for root, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")
                       and d != "_inst"]
            for name in files:
                yield os.path.join(root, name)

    def doc_files(self):
        s = self.srcdir
        found = [os.path.join(s, n) for n in ("README.md", "NEWS.md", "test/bench/RESULTS.md")]
        found += glob.glob(os.path.join(s, "docs", "**", "*.md"), recursive=True)
        for top in ("src", "test", "examples"):
            found += [p for p in self.walk(os.path.join(s, top))
                      if os.path.basename(p) == "README.md"]
        return sorted({os.path.normpath(p) for p in found if os.path.isfile(p)})

    def rel(self, path):
        return os.path.relpath(path, self.srcdir)

    # ---- 1. the parameter page ---------------------------------------------
    def check_page(self):
        regenerate = "%s --markdown > %s" % (self.info, os.path.join(self.srcdir, PAGE))
        try:
            run = subprocess.run([self.info, "--markdown"], capture_output=True, text=True,
                                 timeout=self.timeout)
        except (OSError, subprocess.TimeoutExpired) as error:
            self.fail("%s: cannot run %s --markdown: %s" % (PAGE, self.info, error))
            self.count(False)
            return
        if run.returncode != 0:
            self.fail("%s: %s --markdown exited %d: %s" % (PAGE, self.info, run.returncode,
                                                            run.stderr.strip()))
            self.count(False)
            return
        generated = run.stdout
        for line in generated.splitlines():
            m = re.match(r"^\| `(STMPI_[A-Z0-9_]+)` \|", line)
            if m:
                self.params.add(m.group(1))
        if not self.params:
            self.fail("%s: %s --markdown lists no parameters" % (PAGE, self.info))
            self.count(False)
            return
        path = os.path.join(self.srcdir, PAGE)
        current = open(path).read() if os.path.isfile(path) else ""
        if current == generated:
            self.count(True)
            return
        diff = difflib.unified_diff(current.splitlines(True), generated.splitlines(True),
                                    PAGE + " (checked in)", PAGE + " (stmpi_info --markdown)")
        sys.stdout.writelines(diff)
        self.fail("%s: differs from stmpi_info --markdown; regenerate it: %s" % (PAGE, regenerate))
        self.count(False)

    # ---- 2. STMPI_* names ------------------------------------------------
    def known_names(self):
        """Variables the scripts read and names the sources define."""
        known = set()
        shell = [re.compile(r"\$\{?(STMPI_[A-Z0-9_]+)"), re.compile(r"\b(STMPI_[A-Z0-9_]+)=")]
        python = [re.compile(r"environ(?:\.get)?\(?\[?\s*[\"'](STMPI_[A-Z0-9_]+)")]
        program = [re.compile(r"getenv\(\s*\"(STMPI_[A-Z0-9_]+)\"")]
        for top in ("maint", "test", ".ci"):
            for path in self.walk(os.path.join(self.srcdir, top)):
                name = os.path.basename(path)
                if name.endswith(".py"):
                    patterns = python
                elif name.endswith((".c", ".cc", ".h")):
                    patterns = program  # a test program reads it from its environment
                elif (name.endswith((".sh", ".mk", ".bash")) or name.startswith("Makefile")
                      or name == "testlist" or self.is_script(path)):
                    patterns = shell
                else:
                    continue
                text = self.read(path)
                for pattern in patterns:
                    known.update(pattern.findall(text))
        define = [re.compile(r"#\s*define\s+(STMPI_[A-Z0-9_]+)"),
                  re.compile(r"AC_(?:DEFINE|DEFINE_UNQUOTED|SUBST)\(\s*\[?(STMPI_[A-Z0-9_]+)"),
                  re.compile(r"-D(STMPI_[A-Z0-9_]+)"),
                  re.compile(r"^\s*(STMPI_[A-Z0-9_]+)\s*[:+]?=", re.M)]
        sources = list(self.walk(os.path.join(self.srcdir, "src")))
        sources += list(self.walk(os.path.join(self.srcdir, "include")))
        sources += [os.path.join(self.srcdir, n) for n in ("configure.ac", "Makefile.am")]
        for path in sources:
            if os.path.isfile(path):
                text = self.read(path)
                for pattern in define:
                    known.update(pattern.findall(text))
        return known

    @staticmethod
    def is_script(path):
        try:
            with open(path, "rb") as f:
                first = f.readline(200)
        except OSError:
            return False
        return first.startswith(b"#!") and (b"sh" in first or b"python" in first)

    @staticmethod
    def read(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def check_names(self, path, lines, known):
        ok = True
        for number, line in enumerate(lines, 1):
            for token in STMPI_NAME.findall(line):
                if token in self.params or token in known:
                    continue
                prefix = token.rstrip("*")
                if (token.endswith("*") or token.endswith("_")) and any(
                        p.startswith(prefix) for p in self.params):
                    continue
                self.fail("%s:%d: %s is not a runtime parameter, a variable a script reads or "
                          "a name the sources define" % (self.rel(path), number, token))
                ok = False
        self.count(ok)

    # ---- 3. paths in backticks ---------------------------------------------
    def tracked_basenames(self):
        if self.basenames is None:
            self.basenames = {os.path.basename(p) for p in self.walk(self.srcdir)}
            if self.builddir:
                self.basenames |= {os.path.basename(p) for p in self.walk(self.builddir)}
        return self.basenames

    @staticmethod
    def path_candidate(token):
        token = token.strip()
        if not token or " " in token or token.startswith(("/", "~", "$", "-")):
            return None
        if "://" in token or token.startswith("www.") or PLACEHOLDER.search(token):
            return None
        token = re.sub(r"#.*$", "", token)          # an anchor
        token = re.sub(r":[0-9][0-9,-]*$", "", token)  # a line number
        if not token or not re.fullmatch(r"[A-Za-z0-9_.+*/-]+", token):
            return None
        if "/" in token or token.lower().endswith(PATH_EXTENSIONS):
            return token
        return None

    def path_exists(self, token, folder):
        bases = [self.srcdir, folder] + ([self.builddir] if self.builddir else [])
        for base in bases:
            candidate = os.path.normpath(os.path.join(base, token))
            if "*" in token:
                if glob.glob(candidate, recursive=True):
                    return True
            elif os.path.exists(candidate):
                return True
        return False

    def check_paths(self, path, lines, examples):
        ok = True
        folder = os.path.dirname(path)
        for number, line in enumerate(lines, 1):
            for _, span in CODE_SPAN.findall(line):
                token = self.path_candidate(span)
                if token is None or self.path_exists(token, folder):
                    continue
                if "/" not in token:
                    # A bare file name: a file somewhere in the tree, or one of
                    # the examples this documentation compiles.
                    if token in self.tracked_basenames() or token in examples:
                        continue
                else:
                    # Without an extension and with a first component that is
                    # nowhere in the tree, a slash is prose ("yes/no").
                    first = token.split("/")[0]
                    if not token.lower().endswith(PATH_EXTENSIONS) and not token.endswith("/") \
                            and not any(os.path.exists(os.path.join(b, first))
                                        for b in (self.srcdir, folder)):
                        continue
                self.fail("%s:%d: `%s` names no file of the repository" % (self.rel(path), number,
                                                                          token))
                ok = False
        self.count(ok)

    # ---- 4. MPIX_ names ----------------------------------------------------
    def declared_mpix(self):
        names = set()
        for header in ("include/mpix.h", "include/mpi.h"):
            path = os.path.join(self.srcdir, header)
            if not os.path.isfile(path):
                continue
            text = self.read(path)
            text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
            text = re.sub(r"//[^\n]*", " ", text)
            names.update(re.findall(r"\bMPIX_\w+", text))
        return names

    def check_mpix(self, path, lines, declared):
        ok = True
        for number, line in enumerate(lines, 1):
            for token in MPIX_NAME.findall(line):
                if token in declared:
                    continue
                if token.endswith("*") and any(d.startswith(token[:-1]) for d in declared):
                    continue
                self.fail("%s:%d: %s is not declared in include/mpix.h or include/mpi.h"
                          % (self.rel(path), number, token))
                ok = False
        self.count(ok)

    # ---- 5. examples -------------------------------------------------------
    @staticmethod
    def text_lines(lines):
        """The lines outside fenced blocks (those inside are blanked)."""
        out, fenced = [], False
        for line in lines:
            if FENCE.match(line):
                fenced = not fenced
                out.append("")
                continue
            out.append("" if fenced else line)
        return out

    @staticmethod
    def find_examples(lines):
        """(name, ranks, first line number, code) of each complete example."""
        found, i = [], 0
        while i < len(lines):
            if re.match(r"^\s*```\s*c\s*$", lines[i]) and i + 1 < len(lines):
                m = EXAMPLE_LINE.match(lines[i + 1].strip())
                j = i + 1
                while j < len(lines) and not FENCE.match(lines[j]):
                    j += 1
                if m:
                    found.append((m.group(1), int(m.group(2)), i + 2, "\n".join(lines[i + 1:j])
                                  + "\n"))
                i = j + 1
                continue
            if FENCE.match(lines[i]):  # skip other fenced blocks whole
                j = i + 1
                while j < len(lines) and not FENCE.match(lines[j]):
                    j += 1
                i = j + 1
                continue
            i += 1
        return found

    def check_example(self, path, name, ranks, number, code):
        where = "%s:%d: example %s.c" % (self.rel(path), number, name)
        os.makedirs(self.workdir, exist_ok=True)
        source = os.path.join(self.workdir, name + ".c")
        program = os.path.join(self.workdir, name)
        with open(source, "w") as f:
            f.write(code)
        command = self.cc + self.cflags + [source, "-o", program] + self.libs
        build = subprocess.run(command, capture_output=True, text=True)
        if build.returncode != 0:
            self.fail("%s does not compile: %s\n%s" % (where, " ".join(command),
                                                       tail(build.stdout + build.stderr)))
            self.count(False)
            return
        command = [self.mpiexec, "-n", str(ranks), program]
        try:
            run = subprocess.run(command, capture_output=True, text=True, timeout=self.timeout,
                                 cwd=self.workdir)
        except subprocess.TimeoutExpired:
            self.fail("%s: %s ran past %d s" % (where, " ".join(command), self.timeout))
            self.count(False)
            return
        if run.returncode != 0:
            self.fail("%s: %s exited %d\n%s" % (where, " ".join(command), run.returncode,
                                                tail(run.stdout + run.stderr)))
            self.count(False)
            return
        self.count(True)

    # ---- all of it ---------------------------------------------------------
    def run(self):
        self.check_page()
        known = self.known_names()
        declared = self.declared_mpix()
        docs = self.doc_files()
        examples = {}
        for path in docs:
            lines = self.read(path).splitlines()
            in_user = os.path.dirname(path) == os.path.join(self.srcdir, "docs", "user")
            for example in self.find_examples(lines) if in_user else []:
                examples.setdefault(example[0] + ".c", []).append((path, example))
        for path in docs:
            lines = self.read(path).splitlines()
            self.check_names(path, lines, known)
            self.check_paths(path, self.text_lines(lines), examples)
            self.check_mpix(path, lines, declared)
        for file_name, found in sorted(examples.items()):
            if len(found) > 1:
                self.fail("example %s appears %d times: %s" % (
                    file_name, len(found), ", ".join(self.rel(p) for p, _ in found)))
                self.count(False)
            path, (name, ranks, number, code) = found[0]
            self.check_example(path, name, ranks, number, code)
        print("check-docs: %d passed, %d failed" % (self.passed, self.failed))
        return self.failed == 0


def tail(text, lines=15):
    kept = text.strip().splitlines()[-lines:]
    return "\n".join("  | " + line for line in kept)


# ---- self-test --------------------------------------------------------------
def self_test():
    """A made-up tree with one fault of each kind: each must be caught (and
    the good names, paths and example next to them must pass)."""
    top = tempfile.mkdtemp(prefix="check-docs-self-test.")
    try:
        def write(rel, text, mode=0o644):
            path = os.path.join(top, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, mode)
            return path

        page = ("# Runtime parameters\n\n| Variable | Default |\n| --- | --- |\n"
                "| `STMPI_GOOD_PARAM` | `1` |\n")
        info = write("build/stmpi_info", "#!/bin/sh\ncat <<'EOF'\n%sEOF\n" % page, 0o755)
        write(PAGE, page.replace("`1`", "`2`"))  # fault: the page is stale
        write("include/mpix.h", "int MPIX_Good_call(int x);\n/* MPIX_Only_in_a_comment */\n")
        write("include/mpi.h", "#define STMPI_API\n")
        write("maint/run.sh", "#!/bin/sh\necho \"${STMPI_SCRIPT_VAR:-x}\"\n")
        write("src/README.md", "A map.\n")
        write("README.md", "\n".join([
            "Set `STMPI_GOOD_PARAM`, `STMPI_SCRIPT_VAR`, `STMPI_API`, `STMPI_GOOD_*`.",
            "Set STMPI_NO_SUCH_PARAM=1.",                               # fault: name (line 2)
            "See `src/README.md`, `docs/user/ok.md`, `yes/no`, `https://x.org/a.md`.",
            "See `src/no_such_dir/file.cc`.",                           # fault: path (line 4)
            "Call MPIX_Good_call, not MPIX_Only_in_a_comment.",          # fault: MPIX (line 5)
            ""]))
        example = ("```c\n/* example %s.c, run on 2 ranks: %s */\n"
                   "int main(void) { return %d; }\n```\n")
        write("docs/user/ok.md", "Good.\n\n" + example % ("good", "exits 0", 0))
        write("docs/user/bad.md", "Bad.\n\n" + example % ("bad", "exits 3", 3))  # fault
        # mpiexec stand-in: runs the program once (no MPI in the self-test).
        mpiexec = write("build/mpiexec", "#!/bin/sh\nshift 2\nexec \"$@\"\n", 0o755)
        cc = os.environ.get("CC", "cc").split()
        checker = Checker(top, os.path.join(top, "build"), info, cc, [], [], mpiexec,
                          os.path.join(top, "build", "check-docs"))
        import io
        from contextlib import redirect_stdout
        out = io.StringIO()
        with redirect_stdout(out):
            checker.run()
        text = out.getvalue()
        expected = {
            "the stale page": "docs/user/parameters.md: differs from stmpi_info --markdown",
            "the bad name": "README.md:2: STMPI_NO_SUCH_PARAM is not",
            "the bad path": "README.md:4: `src/no_such_dir/file.cc` names no file",
            "the bad MPIX name": "README.md:5: MPIX_Only_in_a_comment is not declared",
            "the failing example": "docs/user/bad.md:4: example bad.c:",
            "the summary": "check-docs: 13 passed, 5 failed",
        }
        # 18 items: the page; README.md, src/README.md, ok.md, bad.md and
        # parameters.md three each (names, paths, MPIX); two examples. Failing:
        # the page, README's names, paths and MPIX names, bad.c.
        missed = [what for what, line in expected.items() if line not in text]
        reports = [line for line in text.splitlines() if not line.startswith(("+", "-", " ", "@"))]
        unexpected = [line for line in reports
                      if ("STMPI_GOOD" in line or "STMPI_SCRIPT_VAR" in line or "STMPI_API" in line
                          or "yes/no" in line or "good.c" in line or "MPIX_Good_call" in line
                          or "src/README.md" in line or "ok.md" in line)]
        if missed or unexpected:
            print(text)
            for what in missed:
                print("self-test: not caught: %s" % what)
            for line in unexpected:
                print("self-test: a good item was reported: %s" % line)
            print("check-docs self-test: FAILED")
            return False
        print("check-docs self-test: passed (stale page, bad name, bad path, bad MPIX name and "
              "failing example caught; good ones passed)")
        return True
    finally:
        shutil.rmtree(top, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--srcdir", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--builddir", default=".")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    parser.add_argument("--cflags", default="", help="extra compiler flags (a sanitizer's)")
    args = parser.parse_args()
    if args.self_test:
        return 0 if self_test() else 1
    srcdir = os.path.abspath(args.srcdir)
    builddir = os.path.abspath(args.builddir)
    libdir = os.path.join(builddir, ".libs")
    checker = Checker(
        srcdir, builddir, os.path.join(builddir, "stmpi_info"), args.cc.split(),
        args.cflags.split() + ["-O2", "-I" + os.path.join(srcdir, "include")],
        ["-L" + libdir, "-Wl,-rpath," + libdir, "-lmpich", "-lm"],
        os.path.join(builddir, "mpiexec"), os.path.join(builddir, "check-docs"))
    return 0 if checker.run() else 1


if __name__ == "__main__":
    sys.exit(main())
